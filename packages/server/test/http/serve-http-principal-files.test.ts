/**
 * Offload files belong to the token's principal, not to the MCP session that
 * wrote them (issue 21, stateless remote): every session of one token reads
 * them, by path or by handle (file name, `atlatl://offload/` URI), after the
 * writing session ended; another token gets the answer of a file that does
 * not exist and never sees them listed; they live their TTL and are swept
 * once. A request may declare it offloads locally in its own `_meta`. A real
 * `atlatl serve --http` process, SDK 1.x clients.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  ResourceListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_PRINCIPAL, principalDir, tokenPrincipal } from "../../src/http/mcp/principals.js";
import { firstIds } from "./offload-file.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

const A = "principal-files-token-a";
const B = "principal-files-token-b";

const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const broad = { query: "", limit: 300, detail: "full" };

async function offload(c: Client): Promise<{ path: string; uri: string }> {
  const result = (await c.callTool({
    name: "recall_memories",
    arguments: broad,
  })) as CallToolResult;
  const descriptor = JSON.parse(text(result));
  expect(descriptor.offloaded).toBe(true);
  const link = result.content.find((x) => x.type === "resource_link") as { uri: string };
  return { path: descriptor.file_path, uri: link.uri };
}
const extract = async (c: Client, file_path: string) =>
  (await c.callTool({
    name: "lro_extract",
    arguments: { file_path, query: ".id", limit: 2 },
  })) as CallToolResult;
/** End the client's session (HTTP DELETE) and wait until the server forgot it. */
async function endSession(s: HttpServer, c: Client, token: string): Promise<void> {
  const transport = c.transport as StreamableHTTPClientTransport;
  const sessionId = transport.sessionId as string;
  await transport.terminateSession();
  await c.close();
  const res = await fetch(`${s.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "mcp-session-id": sessionId,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  expect(res.status).toBe(404);
}

describe("atlatl serve --http: offload files belong to the token, not the session", () => {
  let s: HttpServer;
  beforeAll(async () => {
    s = await startHttpServer({ tokens: `${A},${B}`, seed: 600 });
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
  });

  it("writes to the token's principal directory, named by neither the token nor its position", async () => {
    const a = await s.connect({ token: A });
    const { path } = await offload(a);
    expect(dirname(path)).toBe(principalDir(s.outputDir, tokenPrincipal(A)));
    expect(path).not.toContain(A);
    expect(tokenPrincipal(A)).toMatch(/^tok-[0-9a-f]{16}$/);
    expect(tokenPrincipal(A)).not.toContain(A);
  });

  it("lets a later session of the same token extract and read a file after the writing session ended", async () => {
    const first = await s.connect({ token: A });
    const { path, uri } = await offload(first);
    await endSession(s, first, A);
    expect(existsSync(path)).toBe(true);

    const later = await s.connect({ token: A });
    const want = firstIds(path, 2);
    for (const handle of [path, basename(path), uri]) {
      const r = await extract(later, handle);
      expect(r.isError, `${handle}: ${text(r)}`).toBeFalsy();
      expect(text(r)).toBe(want);
    }
    const read = await later.readResource({ uri });
    expect((read.contents[0] as { text: string }).text).toBe(readFileSync(path, "utf8"));
    expect((await later.listResources()).resources.map((r) => r.uri)).toContain(uri);
  });

  it("answers another token as if the file did not exist: by path, name and URI, and never lists it", async () => {
    const a = await s.connect({ token: A });
    const b = await s.connect({ token: B });
    const { path, uri } = await offload(a);
    // B has a file of its own first: its directory exists, so only isolation keeps A's file from it.
    const own = await offload(b);
    expect(dirname(own.path)).not.toBe(dirname(path));
    const name = basename(path);
    const notFound = `FILE_NOT_FOUND: there is no offload file ${name}.`;
    const answers = await Promise.all([path, name, uri].map((h) => extract(b, h)));
    for (const r of answers) {
      expect(r.isError).toBe(true);
      expect(text(r).startsWith(notFound), text(r)).toBe(true);
      expect(r.structuredContent).toEqual({
        error: { code: "FILE_NOT_FOUND", message: text(r).replace(/^FILE_NOT_FOUND: /, "") },
      });
    }
    // The same words whichever way it was named: nothing tells B the file exists.
    expect(new Set(answers.map(text)).size).toBe(1);

    const refused = await b.readResource({ uri }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((refused as McpError).message).toContain(
      `FILE_NOT_FOUND: there is no offload file ${name}`,
    );
    expect((await b.listResources()).resources.map((r) => r.uri)).not.toContain(uri);
    // A, in another session, still lists and reads it.
    const a2 = await s.connect({ token: A });
    expect((await a2.listResources()).resources.map((r) => r.uri)).toContain(uri);
    expect(text(await extract(a2, path))).toBe(firstIds(path, 2));
  });

  it("tells every live session of the token, and only of that token, that the offload resources changed", async () => {
    const [a1, a2, b] = await Promise.all([
      s.connect({ token: A }),
      s.connect({ token: A }),
      s.connect({ token: B }),
    ]);
    let heardA2 = 0;
    let heardB = 0;
    a2.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      heardA2++;
    });
    b.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      heardB++;
    });
    // A session hears server notices on its GET stream, which the client opens
    // after initialize without saying when; a notice sent before it is open is
    // not for that session. So A offloads until a2 has heard one (B never may).
    let uri = "";
    await expect
      .poll(
        async () => {
          ({ uri } = await offload(a1));
          return heardA2;
        },
        { timeout: 15_000, interval: 250 },
      )
      .toBeGreaterThan(0);
    expect((await a2.listResources()).resources.map((r) => r.uri)).toContain(uri);
    expect(heardB).toBe(0);
    // B's own offload reaches B (its stream long open by now), and not A's sessions.
    const before = heardA2;
    await offload(b);
    await expect.poll(() => heardB, { timeout: 5_000 }).toBe(1);
    await a2.listResources(); // a round trip: a notice sent before it has arrived
    expect(heardA2).toBe(before);
  });

  it("gives whole-set-inline to a request whose _meta declares the proxy capability", async () => {
    const plain = await s.connect({ token: A });
    const offloaded = JSON.parse(
      text((await plain.callTool({ name: "recall_memories", arguments: broad })) as CallToolResult),
    );
    expect(offloaded.offloaded).toBe(true);

    const result = (await plain.callTool({
      name: "recall_memories",
      arguments: broad,
      _meta: {
        "io.modelcontextprotocol/clientCapabilities": { experimental: { "atlatl/proxy": {} } },
      },
    })) as CallToolResult;
    const page = JSON.parse(text(result));
    expect(page.offloaded).toBeUndefined();
    expect(result.content.some((c) => c.type === "resource_link")).toBe(false);
    const set = (
      result.structuredContent as { lro_whole_set: { records: unknown[]; total: number } }
    ).lro_whole_set;
    expect(set.total).toBe(offloaded.summary.count);
    expect(set.records).toHaveLength(offloaded.summary.count);
    // Only that request: the session's next plain call offloads again.
    const again = await plain.callTool({ name: "recall_memories", arguments: broad });
    expect(JSON.parse(text(again as CallToolResult)).offloaded).toBe(true);
  });
});

describe("atlatl serve --http: a principal's files live their TTL, not their session's life", () => {
  const TTL = 5;
  let s: HttpServer;
  beforeAll(async () => {
    s = await startHttpServer({ tokens: A, seed: 600, args: ["--ttl", String(TTL)] });
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
  });

  it("keeps a closed session's file until its TTL, then sweeps it once and removes the idle principal's directory", async () => {
    const a = await s.connect({ token: A });
    const { path } = await offload(a);
    await endSession(s, a, A);
    expect(existsSync(path)).toBe(true);

    await expect
      .poll(() => existsSync(path), { timeout: 4 * TTL * 1000, interval: 200 })
      .toBe(false);
    await expect
      .poll(() => existsSync(dirname(path)), { timeout: 4 * TTL * 1000, interval: 200 })
      .toBe(false);
    const metrics = await (
      await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${A}` } })
    ).text();
    expect(metrics).toMatch(/atlatl_offloads_total\{outcome="created"\} 1\n/);
    expect(metrics).toMatch(/atlatl_offloads_total\{outcome="expired"\} 1\n/);
  }, 60_000);
});

describe("atlatl serve --http without tokens: one principal", () => {
  let s: HttpServer;
  beforeAll(async () => {
    s = await startHttpServer({ seed: 600 });
  }, 60_000);
  afterAll(async () => {
    if (s) expect(await s.stop()).toBe(0);
  });

  it("shares every file between its sessions, under principals/", async () => {
    const [one, two] = await Promise.all([s.connect(), s.connect()]);
    const { path, uri } = await offload(one);
    expect(dirname(path)).toBe(principalDir(s.outputDir, LOCAL_PRINCIPAL));
    expect(text(await extract(two, basename(path)))).toBe(firstIds(path, 2));
    expect((await two.listResources()).resources.map((r) => r.uri)).toContain(uri);
  });
});
