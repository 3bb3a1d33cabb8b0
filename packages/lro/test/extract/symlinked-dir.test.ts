/**
 * An output directory that is a symlink (a principal's directory linked to
 * another principal's) is refused by the readers exactly as by the writer:
 * `lro_extract`, `resources/read` and `resources/list` of principal B, whose
 * directory links to A's, see none of A's files, and say why with the
 * writer's code.
 */
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { afterEach, expect, it } from "vitest";
import { LroEvents, recordsProfile } from "../../src/index.js";
import { registerLroExtract, registerOffloadResources } from "../../src/mcp.js";
import { Offloader } from "../../src/node.js";
import { tempDir } from "../fixtures/helpers.js";

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

function offloaderOf(dir: string): Offloader {
  return new Offloader({
    config: { enabled: true, thresholdTokens: 50, ttlSeconds: 3600, outputDir: dir },
    events: new LroEvents({ sink: null }),
  });
}

const records = Array.from({ length: 100 }, (_, i) => ({ id: `r-${i}`, secret: `a's ${i}` }));

it("a principal directory linked to another principal's is refused by every reader, as by the writer", async () => {
  const t = tempDir("lro-principals-");
  cleanups.push(t.cleanup);
  const dirA = join(t.dir, "a");
  const dirB = join(t.dir, "b");
  mkdirSync(dirA, { mode: 0o700 });
  symlinkSync(dirA, dirB);

  const written = await offloaderOf(dirA).offloadRecords({
    operation: "search",
    profile: recordsProfile,
    records,
  });
  if (written.kind !== "offloaded") throw new Error(`A's offload: ${written.kind}`);
  const name = written.file.path.slice(dirA.length + 1);

  // The writer refuses B's directory.
  const b = offloaderOf(dirB);
  const refused = await b.offloadRecords({ operation: "search", profile: recordsProfile, records });
  expect(refused.kind === "truncated" && refused.error.code).toBe("OUTPUT_DIR_SYMLINK");

  const server = new McpServer({ name: "b", version: "1.0.0" });
  const extract = registerLroExtract(server, { offloader: b });
  cleanups.push(() => extract.close());
  registerOffloadResources(server, { config: b.config, ResourceTemplate });
  const client = new Client({ name: "c", version: "1.0.0" });
  const [x, y] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(x), client.connect(y)]);
  cleanups.push(() => client.close());

  for (const filePath of [join(dirB, name), name, `atlatl://offload/${name}`]) {
    const r = (await client.callTool({
      name: "lro_extract",
      arguments: { file_path: filePath, query: ".secret" },
    })) as { isError?: boolean; content: { text?: string }[] };
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toContain("OUTPUT_DIR_SYMLINK");
    expect(r.content[0]?.text).not.toContain("a's");
  }

  const uri = `atlatl://offload/${name}`;
  const read = await client.readResource({ uri }).catch((e: unknown) => e);
  expect(read).toMatchObject({ code: -32602, data: { uri } });
  expect((read as Error).message).toContain("OUTPUT_DIR_SYMLINK");

  const listed = await client.listResources().catch((e: unknown) => e);
  expect(listed).toBeInstanceOf(Error);
  expect((listed as Error).message).toContain("OUTPUT_DIR_SYMLINK");
});
