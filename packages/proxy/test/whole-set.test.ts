/**
 * The whole-set guarantee through the proxy: `atlatl-proxy` in front of a real
 * `atlatl serve` (stdio, the SDK's client). Whatever the proxy's threshold is
 * beside the server's (lower, equal, higher), a recall whose matches are above
 * the proxy's threshold is written whole by the proxy (9 of 9, no cursor), its
 * descriptor has the scores' range and the detail its lines have, and the
 * proxy's own `max_records` caps the file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { direct, type Peer, proxied, tempDir } from "./helpers.js";

const here = dirname(fileURLToPath(import.meta.url));
const serverRoot = resolve(here, "../../server");
const ATLATL = ["--conditions=source", "--import", "tsx", join(serverRoot, "src/cli/main.ts")];

const work = tempDir("atlatl-proxy-whole-");
const db = join(work.dir, "atlatl.db");
const serve = [...ATLATL, "serve", "--db", db];
const QUERY = "zebrafish";
const MATCHES = 9;
let d: Peer;

/** Environment of an `atlatl serve` child (the proxy passes its own on). */
function serverEnv(threshold: number, outDir: string): Record<string, string> {
  return {
    ATLATL_CONFIG: "",
    ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS: String(threshold),
    ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: outDir,
  };
}

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const linesOf = (path: string) =>
  readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

let serverFile: Record<string, unknown>[] = [];

beforeAll(async () => {
  d = await direct(serve, undefined);
  // Nine long memories about the query (about 280 tokens each at medium), and others.
  const body = "The zebrafish tank log records temperature, feeding and water quality. ".repeat(14);
  for (let i = 0; i < MATCHES; i++) {
    await d.client.callTool({
      name: "capture_memory",
      arguments: { title: `Zebrafish tank ${i}`, content: `${body}Tank ${i}.`, tags: ["lab"] },
    });
  }
  for (let i = 0; i < 12; i++) {
    await d.client.callTool({
      name: "capture_memory",
      arguments: { title: `Unrelated ${i}`, content: `Nothing about fish here, note ${i}.` },
    });
  }
  await d.close();
  // The server's own offload of the same recall: the reference file.
  const ref = await direct(serve, undefined, serverEnv(1600, join(work.dir, "ref")));
  try {
    const r = (await ref.client.callTool({
      name: "recall_memories",
      arguments: { query: QUERY, detail: "medium", limit: 8 },
    })) as CallToolResult;
    const descriptor = JSON.parse(textOf(r));
    expect(descriptor.summary.count).toBe(MATCHES);
    serverFile = linesOf(descriptor.file_path);
  } finally {
    await ref.close();
  }
}, 120_000);
afterAll(async () => {
  work.remove();
});

async function throughProxy<T>(
  serverThreshold: number,
  proxyArgs: string[],
  run: (p: Peer, out: string) => Promise<T>,
): Promise<T> {
  const out = join(work.dir, `proxy-${serverThreshold}-${proxyArgs.join("-").replace(/\W/g, "")}`);
  const serverOut = join(work.dir, `server-${serverThreshold}`);
  const p = await proxied(
    serve,
    ["--output-dir", out, ...proxyArgs],
    undefined,
    serverEnv(serverThreshold, serverOut),
  );
  try {
    return await run(p, out);
  } finally {
    await p.close();
  }
}

describe("the proxy writes every match, at any threshold beside the server's", () => {
  const cases = [
    { name: "lower than the server's", server: 4000, proxy: 300 },
    { name: "equal to the server's", server: 1600, proxy: 1600 },
    { name: "higher than the server's", server: 300, proxy: 1600 },
  ];
  for (const c of cases) {
    it(`proxy threshold ${c.name}: 9 of 9 in the proxy's file, scores, no cursor`, async () => {
      await throughProxy(c.server, ["--threshold", String(c.proxy)], async (p, out) => {
        const r = (await p.client.callTool({
          name: "recall_memories",
          arguments: { query: QUERY, detail: "medium", limit: 8 },
        })) as CallToolResult;
        const text = textOf(r);
        expect(text).not.toContain("next_cursor");
        const descriptor = JSON.parse(text);
        expect(descriptor.offloaded).toBe(true);
        expect(descriptor.file_path.startsWith(out)).toBe(true);
        expect(descriptor.summary).toMatchObject({
          count: MATCHES,
          operation: "recall",
          detail: "medium",
        });
        const [lo, hi] = descriptor.summary.score_range as [number, number];
        expect(lo).toBeGreaterThan(0);
        expect(hi).toBeGreaterThanOrEqual(lo);
        const lines = linesOf(descriptor.file_path);
        expect(lines[0]).toMatchObject({
          type: "lro_header",
          query: QUERY,
          count: MATCHES,
          detail: "medium",
        });
        // The same records, in the same order, as the server's own offload of this recall.
        expect(lines.slice(1)).toEqual(serverFile.slice(1));
      });
    }, 60_000);
  }

  it("below the proxy's threshold the server's page comes through, and its cursor reaches the rest", async () => {
    await throughProxy(300, ["--threshold", "100000"], async (p) => {
      const first = JSON.parse(
        textOf(
          (await p.client.callTool({
            name: "recall_memories",
            arguments: { query: QUERY, detail: "medium", limit: 8 },
          })) as CallToolResult,
        ),
      );
      expect(first).toMatchObject({ count: 8, total: MATCHES });
      const rest = JSON.parse(
        textOf(
          (await p.client.callTool({
            name: "recall_memories",
            arguments: { query: QUERY, detail: "medium", limit: 8, cursor: first.next_cursor },
          })) as CallToolResult,
        ),
      );
      expect([...first.records, ...rest.records]).toEqual(serverFile.slice(1));
    });
  }, 60_000);

  it("inject_context is described at the detail its lines have (medium by default)", async () => {
    await throughProxy(1600, ["--threshold", "300"], async (p) => {
      const r = (await p.client.callTool({
        name: "inject_context",
        arguments: { query: QUERY },
      })) as CallToolResult;
      const descriptor = JSON.parse(textOf(r));
      expect(descriptor.summary).toMatchObject({
        operation: "inject",
        count: MATCHES,
        detail: "medium",
      });
      const lines = linesOf(descriptor.file_path);
      expect(lines[0]).toMatchObject({ detail: "medium" });
      expect(typeof lines[1]?.content).toBe("string");
      // Recipe 9 of a medium descriptor reads content (light ones have no content).
      expect(JSON.stringify(descriptor.jq_recipes)).toContain(".content");
    });
  }, 60_000);

  it("the proxy's prompt.offload.max_records caps its file, and the descriptor says so", async () => {
    const config = join(work.dir, "proxy.toml");
    writeFileSync(config, "[prompt.offload]\nmax_records = 5\n");
    await throughProxy(1600, ["--threshold", "300", "--config", config], async (p) => {
      const r = (await p.client.callTool({
        name: "recall_memories",
        arguments: { query: QUERY, detail: "medium", limit: 8 },
      })) as CallToolResult;
      const descriptor = JSON.parse(textOf(r));
      expect(descriptor.capped).toMatchObject({ total_matches: MATCHES });
      const lines = linesOf(descriptor.file_path);
      expect(lines).toHaveLength(1 + 5);
      expect(lines.slice(1)).toEqual(serverFile.slice(1, 6));
    });
  }, 60_000);

  it("the server's own max_records caps the whole set it sends the proxy over stdio", async () => {
    // Only the server's config caps: the proxy's max_records stays the default.
    const config = join(work.dir, "server-cap.toml");
    writeFileSync(config, "[prompt.offload]\nmax_records = 4\n");
    const out = join(work.dir, "proxy-server-cap");
    const p = await proxied(
      [...serve, "--config", config],
      ["--output-dir", out, "--threshold", "300"],
      undefined,
      serverEnv(1600, join(work.dir, "server-cap")),
    );
    try {
      const r = (await p.client.callTool({
        name: "recall_memories",
        arguments: { query: QUERY, detail: "medium", limit: 8 },
      })) as CallToolResult;
      const descriptor = JSON.parse(textOf(r));
      expect(descriptor.file_path.startsWith(out)).toBe(true);
      const lines = linesOf(descriptor.file_path);
      // The server sent its first 4 matches of 9: the proxy's file holds those.
      expect(lines).toHaveLength(1 + 4);
      expect(lines.slice(1)).toEqual(serverFile.slice(1, 5));
      expect(descriptor.capped).toMatchObject({ total_matches: MATCHES });
    } finally {
      await p.close();
    }
  }, 60_000);
});
