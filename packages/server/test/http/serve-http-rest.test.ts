import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverRoot } from "../e2e/spawn-server.js";
import { raw } from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const TOKEN = "rest-token";
const cliMain = join(serverRoot, "src/cli/main.ts");
const auth = { authorization: `Bearer ${TOKEN}` };
type Page = {
  items: { id: string; content?: string; namespace: string; memory_type: string; tags: string[] }[];
  next_offset: number | null;
};
type Ranked = { hits: { score: number; memory: { id: string } }[]; next_cursor: string | null };

describe("atlatl serve --http: REST API under /v1", () => {
  let s: HttpServer;
  const get = (path: string) => raw(s.url, path, { headers: auth });

  beforeAll(async () => {
    s = await startHttpServer({ tokens: TOKEN, seed: 120 });
  }, 60_000);
  afterAll(async () => {
    if (s) await s.stop();
  });

  it("GET /v1/memories pages by offset, filters, and sets the detail level", async () => {
    const first = await get("/v1/memories?limit=10");
    expect(first.status).toBe(200);
    const p1 = first.json<Page>();
    expect(p1.items).toHaveLength(10);
    expect(p1.next_offset).toBe(10);
    expect(p1.items[0]?.content).toBeUndefined();
    const p2 = (await get("/v1/memories?limit=10&offset=10&detail=full")).json<Page>();
    expect(p2.items).toHaveLength(10);
    expect(p2.items[0]?.content).toEqual(expect.any(String));
    const ids1 = new Set(p1.items.map((m) => m.id));
    expect(p2.items.some((m) => ids1.has(m.id))).toBe(false);
    const all = (await get("/v1/memories?limit=1000")).json<Page>();
    expect(all.next_offset).toBeNull();
    const typed = (await get("/v1/memories?memory_type=procedural&limit=1000")).json<Page>();
    expect(typed.items.length).toBeGreaterThan(0);
    expect(typed.items.every((m) => m.memory_type === "procedural")).toBe(true);
    const tag = all.items[0]?.tags[0] as string;
    const tagged = (
      await get(`/v1/memories?tag=${encodeURIComponent(tag)}&limit=1000`)
    ).json<Page>();
    expect(tagged.items.every((m) => m.tags.includes(tag))).toBe(true);
    const ns = (await get("/v1/memories?namespace=_semantic&limit=1000")).json<Page>();
    expect(ns.items.every((m) => m.namespace.startsWith("_semantic"))).toBe(true);
  });

  it("GET /v1/memories refuses out-of-range and malformed parameters with 400 naming the field", async () => {
    for (const [query, field] of [
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["limit=abc", "limit"],
      ["offset=-1", "offset"],
      ["memory_type=bogus", "memory_type"],
      ["namespace=a//b", "namespace"],
      ["detail=huge", "detail"],
    ]) {
      const res = await get(`/v1/memories?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers["content-type"]).toBe("application/problem+json");
      expect(res.json<{ field: string }>().field).toBe(field);
    }
  });

  it("refuses a repeated or non-decimal limit/offset with a 400 that says why, on every read", async () => {
    for (const [path, field, detail] of [
      ["/v1/memories?limit=5&limit=999", "limit", /limit: given more than once/],
      ["/v1/memories?offset=0&limit=5&offset=10", "offset", /offset: given more than once/],
      ["/v1/recall?q=x&limit=5&limit=999", "limit", /limit: given more than once/],
      ["/v1/memories?limit=0x10", "limit", /limit: must be a decimal integer/],
      ["/v1/memories?limit=1e1", "limit", /limit: must be a decimal integer/],
      ["/v1/memories?limit=%2016", "limit", /limit: must be a decimal integer/],
      ["/v1/memories?offset=0x10", "offset", /offset: must be a decimal integer/],
      ["/v1/search?q=x&limit=0x10", "limit", /limit: must be a decimal integer/],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      const problem = res.json<{ field: string; detail: string }>();
      expect(problem.field, path).toBe(field);
      expect(problem.detail, path).toMatch(detail);
    }
    expect((await get("/v1/memories?limit=16&offset=0")).json<Page>().items).toHaveLength(16);
  });

  it("refuses a body with a field it does not know (422 naming it) and stores nothing", async () => {
    const before = (await get("/v1/memories?limit=1000")).json<Page>().items.length;
    const res = await raw(s.url, "/v1/memories", {
      method: "POST",
      headers: auth,
      body: { content: "must not be stored", namespaces: "_semantic/x" },
    });
    expect(res.status).toBe(422);
    const problem = res.json<{ field: string; detail: string }>();
    expect(problem.field).toBe("namespaces");
    expect(problem.detail).toMatch(/namespaces/);
    expect((await get("/v1/memories?limit=1000")).json<Page>().items.length).toBe(before);
    const some = (await get("/v1/memories?limit=1")).json<Page>().items[0]?.id as string;
    const patch = await raw(s.url, `/v1/memories/${some}`, {
      method: "PATCH",
      headers: auth,
      body: { title: "renamed?", satus: "archived" },
    });
    expect(patch.status).toBe(422);
    expect(patch.json<{ field: string }>().field).toBe("satus");
    const unchanged = (await get(`/v1/memories/${some}`)).json<{ title: string }>();
    expect(unchanged.title).not.toBe("renamed?");
  });

  it("POST, GET, PATCH and DELETE one memory", async () => {
    const created = await raw(s.url, "/v1/memories", {
      method: "POST",
      headers: auth,
      body: { content: "REST capture: the quokka release train", tags: ["rest"] },
    });
    expect(created.status).toBe(201);
    const m = created.json<{ id: string; title: string }>();
    expect(created.headers.location).toBe(`/v1/memories/${m.id}`);
    expect((await get(`/v1/memories/${m.id}`)).json<{ title: string }>().title).toBe(m.title);

    const patched = await raw(s.url, `/v1/memories/${m.id}`, {
      method: "PATCH",
      headers: auth,
      body: { title: "Renamed over REST", confidence: 0.5 },
    });
    expect(patched.status).toBe(200);
    expect(patched.json<{ title: string }>().title).toBe("Renamed over REST");

    expect(
      (await raw(s.url, `/v1/memories/${m.id}`, { method: "DELETE", headers: auth })).status,
    ).toBe(204);
    expect((await get(`/v1/memories/${m.id}`)).status).toBe(404);
    expect(
      (await raw(s.url, `/v1/memories/${m.id}`, { method: "DELETE", headers: auth })).status,
    ).toBe(404);
  });

  it("answers 404 for unknown ids and 422 naming the field for invalid bodies", async () => {
    const missing = await get("/v1/memories/no-such-id");
    expect(missing.status).toBe(404);
    expect(missing.headers["content-type"]).toBe("application/problem+json");
    const patchMissing = await raw(s.url, "/v1/memories/no-such-id", {
      method: "PATCH",
      headers: auth,
      body: { title: "x" },
    });
    expect(patchMissing.status).toBe(404);

    for (const [body, field] of [
      [{}, "content"],
      [{ content: "" }, "content"],
      [{ content: "ok", namespace: "bad namespace" }, "namespace"],
      [{ content: "ok", confidence: 2 }, "confidence"],
      [{ content: "ok", tags: "not-a-list" }, "tags"],
    ] as const) {
      const res = await raw(s.url, "/v1/memories", { method: "POST", headers: auth, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json<{ field: string }>().field).toBe(field);
    }
    const some = (await get("/v1/memories?limit=1")).json<Page>().items[0]?.id as string;
    const bad = await raw(s.url, `/v1/memories/${some}`, {
      method: "PATCH",
      headers: auth,
      body: { status: "gone" },
    });
    expect(bad.status).toBe(422);
    expect(bad.json<{ field: string }>().field).toBe("status");
    const notJson = await raw(s.url, "/v1/memories", {
      method: "POST",
      headers: auth,
      body: "{not json",
    });
    expect([400, 422]).toContain(notJson.status);
  });

  it("GET /v1/recall and /v1/search rank hits and page with cursors", async () => {
    const recall = await get("/v1/recall?q=incident&limit=3");
    expect(recall.status).toBe(200);
    const r = recall.json<Ranked>();
    expect(r.hits.length).toBeGreaterThan(0);
    expect(r.hits[0]?.score).toEqual(expect.any(Number));
    // Paging by cursor walks the whole ranking once: the pages, joined, are the one-page
    // answer, in its order, with no hit twice and none left out.
    const whole = (await get("/v1/recall?q=incident&limit=1000")).json<Ranked>();
    expect(whole.next_cursor ?? null).toBeNull();
    expect(whole.hits.length).toBeGreaterThan(3);
    expect(r.next_cursor).toEqual(expect.any(String));
    const paged = [...r.hits];
    let cursor = r.next_cursor;
    while (cursor) {
      const page = (
        await get(`/v1/recall?q=incident&limit=3&cursor=${encodeURIComponent(cursor)}`)
      ).json<Ranked>();
      expect(page.hits.length).toBeGreaterThan(0);
      expect(page.hits.length).toBeLessThanOrEqual(3);
      paged.push(...page.hits);
      cursor = page.next_cursor;
    }
    expect(paged.map((h) => h.memory.id)).toEqual(whole.hits.map((h) => h.memory.id));
    const search = await get("/v1/search?q=incident&limit=5");
    expect(search.status).toBe(200);
    expect(search.json<Ranked>().hits.length).toBeGreaterThan(0);
  });

  it("GET /v1/recall and /v1/search refuse bad input with 400", async () => {
    for (const path of [
      "/v1/recall",
      "/v1/search",
      "/v1/recall?q=x&limit=5000",
      "/v1/search?q=x&cursor=",
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.headers["content-type"]).toBe("application/problem+json");
    }
  });

  it("GET /v1/search answers punctuation as words, never 400", async () => {
    for (const q of ['"unbalanced', "zephyrine-valve", "Note 137:", "valve (zephyrine)", "NEAR("]) {
      const res = await get(`/v1/search?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
      expect(Array.isArray(res.json<Ranked>().hits), q).toBe(true);
    }
  });

  it("publishes a valid OpenAPI 3.1 document listing every route", async () => {
    const res = await get("/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>();
    expect(doc.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    const routes = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(routes.sort()).toEqual(
      [
        "GET /memories",
        "POST /memories",
        "POST /memories/batch",
        "GET /memories/{id}",
        "PATCH /memories/{id}",
        "DELETE /memories/{id}",
        "GET /recall",
        "GET /search",
      ].sort(),
    );
  });

  it("GET /v1/memories sees a write at once, from this server or from another process", async () => {
    const path = "/v1/memories?limit=5&detail=medium";
    const first = await get(path);
    expect(first.status).toBe(200);
    // A repeat read is answered the same (from the page cache, when it has one).
    expect((await get(path)).body).toBe(first.body);
    const ids = () => get(path).then((r) => r.json<Page>().items.map((m) => m.id));

    // Through this server: a newer memory leads the page.
    const created = await raw(s.url, "/v1/memories", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: { content: "page cache probe written over REST", namespace: "_semantic/probe" },
    });
    expect(created.status).toBe(201);
    const ownId = created.json<{ id: string }>().id;
    expect((await ids())[0]).toBe(ownId);

    // Through another process (`atlatl import` on the same database file), while
    // this server runs: the next read shows it, with no wait and no reload.
    const doc = join(s.dir, "probe.json");
    writeFileSync(
      doc,
      JSON.stringify({
        "@context": "https://mif-spec.dev/schema/context.jsonld",
        "@type": "Memory",
        "@id": "urn:mif:page-cache-probe",
        memoryType: "semantic",
        content: "page cache probe written by another process",
        created: "2099-01-01T00:00:00Z",
      }),
    );
    execFileSync(
      process.execPath,
      ["--conditions=source", "--import", "tsx", cliMain, "--db", s.dbPath, "import", doc],
      { cwd: serverRoot, stdio: "ignore" },
    );
    const after = (await get(path)).json<Page>().items;
    expect(after[0]?.content).toBe("page cache probe written by another process");
    expect(after[1]?.id).toBe(ownId);
  });

  it("counts and times requests by route pattern, method and status in /metrics", async () => {
    const count = async (series: string) => {
      const text = (await get("/metrics")).body;
      const line = text.split("\n").find((l) => l.startsWith(`${series} `));
      return line ? Number(line.slice(series.length + 1)) : 0;
    };
    const ok = 'atlatl_http_requests_total{route="/v1/memories",method="GET",status="200"}';
    const bad = 'atlatl_http_requests_total{route="/v1/memories",method="GET",status="400"}';
    const refused = 'atlatl_http_requests_total{route="/v1/memories",method="GET",status="401"}';
    const byId = 'atlatl_http_requests_total{route="/v1/memories/:id",method="GET",status="404"}';
    const none = 'atlatl_http_requests_total{route="unmatched",method="GET",status="404"}';
    const timed = 'atlatl_http_request_duration_seconds_count{route="/v1/memories",method="GET"}';
    const before = await Promise.all([ok, bad, refused, byId, none, timed].map(count));
    await get("/v1/memories?limit=1");
    await get("/v1/memories?limit=1");
    await get("/v1/memories?limit=0");
    await raw(s.url, "/v1/memories?limit=1");
    await get("/v1/memories/no-such-id");
    await get("/no-such-route");
    const after = await Promise.all([ok, bad, refused, byId, none, timed].map(count));
    expect(after.map((n, i) => n - (before[i] ?? 0))).toEqual([2, 1, 1, 1, 1, 4]);
  });
});
