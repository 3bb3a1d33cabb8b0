import { type CodedErrorCode, type DetailLevel, isCodedError } from "@atlatl/lro";
import { createRoute, OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { toRecord } from "../../model/detail.js";
import { BATCH_LIMITS } from "../../model/limits.js";
import type { Memory } from "../../model/memory.js";
import type { FilterInput } from "../../services/args.js";
import type { Services } from "../../services/create-services.js";
import { INTERNAL_PROBLEM, problemResponse } from "../problem.js";
import type { AuthVariables } from "../security/bearer-auth.js";
import { PageCache, wantsFresh } from "./page-cache.js";
import {
  BatchCaptureBody,
  BatchCaptured,
  CaptureBody,
  IdParam,
  ListQuery,
  MemoryPage,
  MemoryRecord,
  PatchBody,
  ProblemBody,
  RankedPage,
  RankedQuery,
} from "./schemas.js";

type Env = { Variables: AuthVariables };

const JSON_MIME = "application/json";

interface RestApiOptions {
  /** The store's write epoch (`MemoryStore.writeEpoch`): list pages are cached when given. */
  writeEpoch?: (() => string) | undefined;
}

/** What the ranked reads (recall, search) take from a REST query. */
type RankedInput = {
  query: string;
  filter: FilterInput;
  limit: number | undefined;
  cursor: string | undefined;
};

const problemContent = { "application/problem+json": { schema: ProblemBody } };
const json = <S extends z.ZodType>(schema: S, description: string) => ({
  content: { "application/json": { schema } },
  description,
});
const errors = {
  400: { content: problemContent, description: "A query parameter is out of range" },
  401: { content: problemContent, description: "Missing or invalid bearer token" },
};
const notFound = { 404: { content: problemContent, description: "No memory with this id" } };
const invalidBody = {
  422: { content: problemContent, description: "The body is invalid (field named)" },
};
const security = [{ bearer: [] }];

function pickFilter(q: {
  namespace?: string;
  memory_type?: FilterInput["memory_type"];
  tag?: string;
}) {
  const filter: FilterInput = {};
  if (q.namespace !== undefined) filter.namespace = q.namespace;
  if (q.memory_type !== undefined) filter.memory_type = q.memory_type;
  if (q.tag !== undefined) filter.tags = [q.tag];
  return filter;
}

const unknownId = (c: Context, id: string) =>
  problemResponse(c, {
    title: "Not Found",
    status: 404,
    detail: `No memory with id ${JSON.stringify(id)}.`,
  });

/** The field of a validation issue: its path, or the first unknown key of a body. */
function issueField(issue: { path: PropertyKey[]; code?: string; keys?: string[] } | undefined) {
  if (!issue) return undefined;
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys" && issue.keys?.[0] !== undefined) {
    return path ? `${path}.${issue.keys[0]}` : issue.keys[0];
  }
  return path || undefined;
}

/**
 * Every query parameter of this API takes one value: one given twice
 * (`limit=5&limit=999`) is refused with 400 naming it, not resolved by guessing
 * which one was meant.
 */
function singleValuedQuery(c: Context): Response | undefined {
  const url = c.req.url;
  const at = url.indexOf("?");
  // A repeat needs two parameters (the common one-parameter query costs a scan).
  if (at < 0 || url.indexOf("&", at) < 0) return undefined;
  const seen = new Set<string>();
  for (const key of new URLSearchParams(url.slice(at + 1)).keys()) {
    if (seen.has(key)) {
      return problemResponse(c, {
        title: "Bad Request",
        status: 400,
        detail: `${key}: given more than once; give each query parameter once`,
        field: key,
      });
    }
    seen.add(key);
  }
  return undefined;
}

/** Service validation failures: 400 for query parameters, 422 for bodies; the rest rethrown. */
/** HTTP status of a coded error the client can act on. */
const STATUS_OF: Partial<Record<CodedErrorCode, { status: 404 | 409 | 503; title: string }>> = {
  NOT_FOUND: { status: 404, title: "Not Found" },
  ALREADY_EXISTS: { status: 409, title: "Conflict" },
  CONFLICT: { status: 409, title: "Conflict" },
  // The database is down or stalled: worth retrying, unlike a 500.
  UNAVAILABLE: { status: 503, title: "Service Unavailable" },
  // Hybrid recall's embeddings endpoint is down or slow: as retryable.
  EMBEDDINGS_UNAVAILABLE: { status: 503, title: "Service Unavailable" },
};

/**
 * The REST routes' one error mapping (Hono's `onError`): Hono's HTTP errors keep
 * their status; `INVALID_ARGUMENT` is
 * 400 for a query (GET) and 422 for a body, naming the field; other codes the
 * client can act on have their status; anything else is a 500 problem.
 */
function restError(err: Error, c: Context): Response {
  // Hono's own (a malformed JSON body): its status, as problem+json.
  if (err instanceof HTTPException) {
    return problemResponse(c, { title: "Bad Request", status: err.status, detail: err.message });
  }
  if (isCodedError(err) && err.code === "INVALID_ARGUMENT") {
    const query = c.req.method === "GET";
    return problemResponse(c, {
      title: query ? "Bad Request" : "Unprocessable Content",
      status: query ? 400 : 422,
      code: err.code,
      detail: err.message,
      ...(err.field ? { field: err.field } : {}),
    });
  }
  const mapped = isCodedError(err) ? STATUS_OF[err.code] : undefined;
  if (mapped && isCodedError(err))
    return problemResponse(c, { ...mapped, code: err.code, detail: err.message });
  return problemResponse(c, INTERNAL_PROBLEM);
}

const listRoute = createRoute({
  method: "get",
  path: "/memories",
  summary: "List memories (offset pagination; never offloaded)",
  security,
  request: { query: ListQuery },
  responses: { 200: json(MemoryPage, "A page of memories"), ...errors },
});
const getRoute = createRoute({
  method: "get",
  path: "/memories/{id}",
  summary: "Get one memory at full detail",
  security,
  request: { params: IdParam },
  responses: { 200: json(MemoryRecord, "The memory"), ...errors, ...notFound },
});
const patchRoute = createRoute({
  method: "patch",
  path: "/memories/{id}",
  summary: "Change some fields of a memory",
  security,
  request: {
    params: IdParam,
    body: { content: { "application/json": { schema: PatchBody } }, required: true },
  },
  responses: {
    200: json(MemoryRecord, "The updated memory"),
    ...errors,
    ...notFound,
    ...invalidBody,
  },
});
const deleteRoute = createRoute({
  method: "delete",
  path: "/memories/{id}",
  summary: "Forget a memory",
  security,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errors, ...notFound },
});
const postRoute = createRoute({
  method: "post",
  path: "/memories",
  summary: "Capture a memory",
  security,
  request: { body: { content: { "application/json": { schema: CaptureBody } }, required: true } },
  responses: { 201: json(MemoryRecord, "The stored memory"), ...errors, ...invalidBody },
});
const batchRoute = createRoute({
  method: "post",
  path: "/memories/batch",
  summary: `Capture up to ${BATCH_LIMITS.memories} memories in one transaction (all or nothing)`,
  security,
  request: {
    body: { content: { "application/json": { schema: BatchCaptureBody } }, required: true },
  },
  responses: {
    201: json(BatchCaptured, "The new ids, in the order given"),
    ...errors,
    ...invalidBody,
  },
});
const rankedRoute = (path: "/recall" | "/search", summary: string) =>
  createRoute({
    method: "get",
    path,
    summary,
    security,
    request: { query: RankedQuery },
    responses: { 200: json(RankedPage, "Hits, best first"), ...errors },
  });

const ranked = (hits: readonly { memory: Memory; score: number }[], detail: DetailLevel) =>
  hits.map((h) => ({ score: h.score, memory: toRecord(h.memory, detail) }));

/**
 * The REST API under `/v1`: the same services as the MCP tools, zod-validated
 * (query 400, body 422, both RFC 9457 problem+json naming the field), and its
 * OpenAPI 3.1 document at `/v1/openapi.json`, generated from the routes.
 */
export function createRestApi(services: Services, options: RestApiOptions = {}): OpenAPIHono<Env> {
  const api = new OpenAPIHono<Env>({
    defaultHook: (result, c) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      const field = issueField(issue as Parameters<typeof issueField>[0]);
      const body = result.target === "json";
      return problemResponse(c, {
        title: body ? "Unprocessable Content" : "Bad Request",
        status: body ? 422 : 400,
        detail: `${field ?? result.target}: ${issue?.message ?? "invalid"}`,
        ...(field ? { field } : {}),
      });
    },
  });
  api.onError(restError);
  api.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
  });

  // A page is read at the detail asked for (a light page reads no content and
  // parses no document) and, where the store has a write epoch, its encoded
  // body is reused until any process writes (see PageCache).
  const pages = options.writeEpoch ? new PageCache(options.writeEpoch) : undefined;
  api.use("*", async (c, next) => singleValuedQuery(c) ?? next());
  const queryOf = (c: Context) => {
    const url = c.req.url;
    const at = url.indexOf("?");
    return at < 0 ? "" : url.slice(at + 1);
  };
  if (pages) {
    api.get("/memories", async (c, next) => {
      const body = wantsFresh(c.req.header("cache-control")) ? undefined : pages.get(queryOf(c));
      if (!body) return next();
      // Plain-object headers: @hono/node-server writes them as they are,
      // without building and walking a Headers object.
      return new Response(body as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: { "content-type": JSON_MIME },
      });
    });
  }
  api.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const build = async () => {
      const input = { filter: pickFilter(q), limit: q.limit, offset: q.offset };
      const fields = q.detail === "light" ? "light" : "full";
      const { memories, more } = await services.list.page(input, fields);
      // Read light for a light page, full otherwise: what `detail` needs.
      const items = memories.map((m) => toRecord(m as Memory, q.detail));
      return JSON.stringify({
        items,
        limit: q.limit,
        offset: q.offset,
        next_offset: more ? q.offset + items.length : null,
      });
    };
    const body = pages ? await pages.fill(queryOf(c), build) : await build();
    return c.body(body as never, 200, { "content-type": JSON_MIME }) as never;
  });

  api.openapi(getRoute, async (c) => {
    const { id } = c.req.valid("param");
    const memory = await services.memories.get(id);
    if (!memory) return unknownId(c, id) as never;
    return c.json(toRecord(memory, "full"), 200);
  });

  api.openapi(patchRoute, async (c) => {
    const { id } = c.req.valid("param");
    const memory = await services.memories.update(id, c.req.valid("json"));
    if (!memory) return unknownId(c, id) as never;
    return c.json(toRecord(memory, "full"), 200);
  });

  api.openapi(deleteRoute, async (c) => {
    const { id } = c.req.valid("param");
    if (!(await services.memories.forget(id))) return unknownId(c, id) as never;
    return c.body(null, 204);
  });

  api.openapi(postRoute, async (c) => {
    const memory = await services.memories.capture(c.req.valid("json"));
    c.header("location", `/v1/memories/${encodeURIComponent(memory.id)}`);
    return c.json(toRecord(memory, "full"), 201);
  });

  api.openapi(batchRoute, async (c) => {
    const stored = await services.memories.captureMany(c.req.valid("json").memories);
    return c.json({ count: stored.length, ids: stored.map((m) => m.id) }, 201);
  });

  // Recall and search: the same query shape, page and problem mapping.
  const rankedReads = [
    ["/recall", "Ranked recall (plain words)", (i: RankedInput) => services.recall.recall(i)],
    [
      "/search",
      `Full-text search (${services.search.syntax.name} syntax)`,
      (i: RankedInput) => services.search.search(i),
    ],
  ] as const;
  for (const [path, summary, read] of rankedReads) {
    api.openapi(rankedRoute(path, summary), async (c) => {
      const q = c.req.valid("query");
      const r = await read({
        query: q.q,
        filter: pickFilter(q),
        limit: q.limit,
        cursor: q.cursor,
      });
      return c.json({ hits: ranked(r.hits, q.detail), next_cursor: r.next_cursor }, 200);
    });
  }

  api.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "atlatl memory API", version: "1" },
    servers: [{ url: "/v1" }],
  });
  return api;
}
