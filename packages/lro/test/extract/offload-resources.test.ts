/**
 * Offload files as MCP resources through the SDK `Client`: listed while they
 * live, readable (whole or in pages that concatenate to the file), and an
 * expired file drops out of the list and is refused on read.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offloadCacheFields } from "../../src/mcp/host/offload-resources.js";
import { offloadResourceUri } from "../../src/protocol/offload-resource-uri.js";
import { type ExtractHarness, startHarness } from "./harness.js";
import { makeMemories, projectMemory, writeOffloadFixture } from "./memory-fixtures.js";

let h: ExtractHarness;
let live: string;
let old: string;

beforeAll(async () => {
  h = await startHarness({ pageBytes: 4096 });
  const records = makeMemories(60, 2).map((m) => projectMemory(m, "medium"));
  live = writeOffloadFixture(h.dir, records, { detail: "medium" }).path;
  old = writeOffloadFixture(h.dir, records.slice(0, 3), {
    detail: "medium",
    time: Date.now() - 3 * 3600 * 1000,
  }).path;
});

afterAll(async () => {
  await h?.close();
});

async function readText(uri: string) {
  const result = await h.client.readResource({ uri });
  const content = result.contents[0];
  if (!content || !("text" in content)) throw new Error("no text content");
  return content;
}

describe("offload resources", () => {
  it("lists live files with their URI, and not expired ones", async () => {
    const { resources } = await h.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain(offloadResourceUri(live));
    expect(uris).not.toContain(offloadResourceUri(old));
    const entry = resources.find((r) => r.uri === offloadResourceUri(live));
    expect(entry).toMatchObject({ name: basename(live), mimeType: "application/x-ndjson" });
    // Line 1 is the header, as in the README and the descriptors' guidance.
    expect(entry?.description).toContain("line 1 is the header");
    expect(entry?.description).not.toMatch(/line 0/i);
    const { resourceTemplates } = await h.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("atlatl://offload/{name}");
    expect(resourceTemplates[0]?.description).toContain("Line 1 is the header");
  });

  it("reads a file in pages that concatenate to the file, byte for byte", async () => {
    const whole = readFileSync(live, "utf8");
    expect(Buffer.byteLength(whole)).toBeGreaterThan(4096 * 3);
    let uri: string | undefined = offloadResourceUri(live);
    let text = "";
    let pages = 0;
    while (uri) {
      const content = await readText(uri);
      expect(content.mimeType).toBe("application/x-ndjson");
      text += content.text;
      uri = content._meta?.["atlatl/next_uri"] as string | undefined;
      pages++;
      expect(pages).toBeLessThan(100);
    }
    expect(pages).toBeGreaterThan(2);
    expect(text).toBe(whole);
  });

  it("reads a window of lines with ?offset=N&limit=M (skip N lines; line 1 is the header)", async () => {
    const lines = readFileSync(live, "utf8").split("\n");
    const content = await readText(`${offloadResourceUri(live)}?offset=3&limit=2`);
    expect(content.text).toBe(`${lines[3]}\n${lines[4]}\n`);
    expect(content._meta).toMatchObject({
      "atlatl/offset": 3,
      "atlatl/lines": 2,
      "atlatl/total_lines": 61,
    });
    const header = await readText(`${offloadResourceUri(live)}?offset=0&limit=1`);
    expect(JSON.parse(header.text)).toMatchObject({ type: "lro_header", count: 60 });
  });

  it("refuses expired files, hostile names and bad windows", async () => {
    for (const uri of [
      offloadResourceUri(old),
      "atlatl://offload/..%2F..%2Fetc%2Fpasswd",
      "atlatl://offload/passwd",
      `${offloadResourceUri(live)}?offset=1000`,
      `${offloadResourceUri(live)}?offset=-1`,
      `${offloadResourceUri(live)}?limit=0`,
    ]) {
      await expect(h.client.readResource({ uri }), uri).rejects.toThrow();
    }
    await expect(h.client.readResource({ uri: offloadResourceUri(old) })).rejects.toThrow(
      /FILE_EXPIRED/,
    );
  });

  it("a bad name is refused in resource terms, not lro_extract's", async () => {
    for (const uri of ["atlatl://offload/passwd", "atlatl://offload/..%2F..%2Fetc%2Fpasswd"]) {
      const err = await h.client.readResource({ uri }).catch((e: Error) => e);
      expect(err, uri).toBeInstanceOf(Error);
      expect((err as Error).message, uri).toMatch(/PATH_REFUSED: .*resources\/list/);
      expect((err as Error).message, uri).not.toMatch(/lro_extract|file_path/);
    }
  });

  it("a file drops out of the list when its TTL passes, and is refused on read", async () => {
    const fresh = writeOffloadFixture(h.dir, [{ id: "x", title: "t" }], { detail: "light" }).path;
    expect((await h.client.listResources()).resources.map((r) => r.uri)).toContain(
      offloadResourceUri(fresh),
    );
    h.advance(3601 * 1000);
    try {
      expect((await h.client.listResources()).resources.map((r) => r.uri)).not.toContain(
        offloadResourceUri(fresh),
      );
      await expect(h.client.readResource({ uri: offloadResourceUri(fresh) })).rejects.toThrow(
        /FILE_EXPIRED/,
      );
    } finally {
      h.advance(-3601 * 1000);
    }
  });

  it("an offload through the offloader notifies clients that the list changed", async () => {
    let changed = 0;
    const { ResourceListChangedNotificationSchema } = await import(
      "@modelcontextprotocol/sdk/types.js"
    );
    h.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      changed++;
    });
    const outcome = await h.offloader.offloadRecords({
      operation: "list",
      detail: "light",
      records: makeMemories(200, 4),
    });
    expect(outcome.kind).toBe("offloaded");
    await new Promise((r) => setTimeout(r, 20));
    expect(changed).toBeGreaterThan(0);
    if (outcome.kind === "offloaded") {
      const content = await readText(offloadResourceUri(outcome.file.path));
      expect(content.text.split("\n")[0]).toContain('"operation":"list"');
    }
  });
});

describe("offloadCacheFields", () => {
  it("is private, fresh for the file's remaining life in whole ms, and never negative", () => {
    const created = Date.UTC(2026, 6, 28);
    expect(offloadCacheFields(created, 3600, created)).toEqual({
      cacheScope: "private",
      ttlMs: 3600_000,
    });
    expect(offloadCacheFields(created, 3600, created + 0.5)).toEqual({
      cacheScope: "private",
      ttlMs: 3599_999,
    });
    expect(offloadCacheFields(created, 3600, created + 3600_000)).toMatchObject({ ttlMs: 0 });
    expect(offloadCacheFields(created, 3600, created + 9 * 3600_000)).toMatchObject({ ttlMs: 0 });
  });
});
