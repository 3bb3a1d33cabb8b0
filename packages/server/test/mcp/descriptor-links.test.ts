/**
 * A descriptor's `resource_link` goes only to a client that reads offload
 * files as resources: Claude Code and Codex read them with a shell (the path
 * is in the descriptor), and the link costs every one of their descriptors
 * ~75 o200k tokens. Decided per client by its `clientInfo.name`, as
 * atlatl-proxy's `offload_resources`; `resourceLinks` forces it either way.
 * The same for `lro_extract`'s re-offloaded outputs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AtlatlServerDeps, createAtlatlServer } from "../../src/mcp/create-server.js";
import { createServices, type Services } from "../../src/services/create-services.js";
import type { MemoryStore } from "../../src/store/store.js";
import { BACKENDS } from "../backends/backends.js";
import { makeMemory } from "../store/fixtures.js";

const backend = BACKENDS[0] as (typeof BACKENDS)[number];

let store: MemoryStore;
let services: Services;
let dir: string;

beforeAll(async () => {
  store = await backend.open();
  services = createServices(store);
  dir = mkdtempSync(join(tmpdir(), "atlatl-links-"));
  await store.upsertMany(
    Array.from({ length: 60 }, (_, i) =>
      makeMemory({ title: `Harbor note ${i}`, content: `harbor ${"detail ".repeat(40)}` }),
    ),
  );
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Content block types of a broad recall and of an `lro_extract` re-offload, for `clientName`. */
async function blockTypes(
  clientName: string,
  resourceLinks?: AtlatlServerDeps["resourceLinks"],
): Promise<{ recall: string[]; extract: string[] }> {
  const offloader = new Offloader({
    config: { enabled: true, thresholdTokens: 100, ttlSeconds: 3600, outputDir: dir },
    events: new LroEvents({ sink: null }),
  });
  const atlatl = createAtlatlServer({
    services,
    offloader,
    ...(resourceLinks ? { resourceLinks } : {}),
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: clientName, version: "1.0.0" });
  await Promise.all([atlatl.server.connect(a), client.connect(b)]);
  try {
    const recall = await client.callTool({
      name: "recall_memories",
      arguments: { query: "harbor", limit: 100, detail: "full" },
    });
    const content = recall.content as { type: string; text: string }[];
    expect(recall.isError, content[0]?.text).toBeFalsy();
    const { file_path } = JSON.parse(content[0]?.text as string) as { file_path: string };
    // Every record again: above the threshold, so offloaded in turn.
    const extract = await client.callTool({
      name: "lro_extract",
      arguments: { file_path, query: "." },
    });
    expect(extract.isError, JSON.stringify(extract.content)).toBeFalsy();
    return {
      recall: content.map((c) => c.type),
      extract: (extract.content as { type: string }[]).map((c) => c.type),
    };
  } finally {
    await client.close();
    await atlatl.close();
  }
}

describe("resource links in descriptors, per client", () => {
  it.each(["claude-code", "codex-mcp-client"])(
    "gives %s (an agent with a shell) the descriptor alone",
    async (name) => {
      expect(await blockTypes(name)).toEqual({ recall: ["text"], extract: ["text"] });
    },
  );

  it("links the file for a client it does not know (it may have no shell)", async () => {
    expect(await blockTypes("some-desktop-client")).toEqual({
      recall: ["text", "resource_link"],
      extract: ["text", "resource_link"],
    });
  });

  it("forces links on or off whatever the client", async () => {
    expect(await blockTypes("claude-code", "on")).toEqual({
      recall: ["text", "resource_link"],
      extract: ["text", "resource_link"],
    });
    expect(await blockTypes("some-desktop-client", "off")).toEqual({
      recall: ["text"],
      extract: ["text"],
    });
  });
});
