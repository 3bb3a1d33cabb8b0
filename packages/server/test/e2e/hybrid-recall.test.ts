/**
 * Hybrid recall end to end, on every backend: `atlatl serve` over stdio with
 * `[embeddings]` pointing at the deterministic embeddings server of
 * `test/embeddings/`, driven by the SDK's Client. A memory sharing no word
 * with the query is recalled by meaning; an endpoint that is down, failing or
 * slow gives a coded error within the configured bound, and capture still
 * stores the memory.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS } from "../backends/backends.js";
import {
  type EmbeddingsServer,
  embeddingsEnv,
  startEmbeddingsServer,
} from "../embeddings/embeddings-server.js";
import { call, jsonOf, startServer } from "./spawn-server.js";

const MEMORIES = [
  { title: "Automobile maintenance timetable", content: "Oil and filters every 10,000 km." },
  { title: "Espresso ratios", content: "18 g in, 36 g out, 28 seconds." },
  { title: "Garden watering schedule", content: "Tomatoes every second evening." },
  { title: "Postgres vacuum settings", content: "autovacuum_naptime of 10s." },
];

type Records = { records: { id: string; title: string }[] };

function errorOf(result: Awaited<ReturnType<typeof call>>) {
  expect(result.isError).toBe(true);
  return (result.structuredContent as { error: { code: string; message: string } }).error;
}

let embeddings: EmbeddingsServer;
beforeAll(async () => {
  embeddings = await startEmbeddingsServer(16);
});
afterAll(async () => {
  await embeddings.close();
});

describe("recall_memories' description", () => {
  it("says it matches by meaning with [embeddings], and not without", async () => {
    const hybrid = await startServer({ env: embeddingsEnv(embeddings) });
    const lexical = await startServer();
    try {
      const described = async (server: typeof hybrid) =>
        (await server.client.listTools()).tools.find((t) => t.name === "recall_memories")
          ?.description ?? "";
      expect(await described(hybrid)).toContain("by words or meaning");
      expect(await described(lexical)).not.toContain("meaning");
    } finally {
      await lexical.close();
      await hybrid.close();
    }
  }, 60_000);
});

for (const backend of BACKENDS) {
  describe(`hybrid recall over stdio: ${backend.name}`, () => {
    it("recalls 'Automobile maintenance timetable' for 'car upkeep schedule', which lexical recall misses", async () => {
      const server = await startServer({ backend, env: embeddingsEnv(embeddings) });
      const lexical = await startServer({ storeArgs: server.storeArgs });
      try {
        const ids: string[] = [];
        for (const m of MEMORIES) {
          const r = await call(server.client, "capture_memory", m);
          expect(r.isError).toBeFalsy();
          const stored = jsonOf<{ id: string; embedding: { model: string } | null }>(r);
          expect(stored.embedding?.model).toBe("concepts-v1");
          ids.push(stored.id);
        }
        const hybrid = jsonOf<Records>(
          await call(server.client, "recall_memories", { query: "car upkeep schedule" }),
        );
        const titles = hybrid.records.map((r) => r.title);
        expect(titles).toContain("Automobile maintenance timetable");
        expect(titles).not.toContain("Espresso ratios");

        const plain = jsonOf<Records>(
          await call(lexical.client, "recall_memories", { query: "car upkeep schedule" }),
        );
        expect(plain.records.map((r) => r.title)).not.toContain("Automobile maintenance timetable");

        const got = jsonOf<{ embedding: Record<string, unknown> | null }>(
          await call(server.client, "get_memory", { id: ids[0] }),
        );
        expect(got.embedding).toMatchObject({
          model: "concepts-v1",
          dimensions: 16,
          vector_uri: `urn:atlatl:vector:${ids[0]}`,
        });
      } finally {
        await lexical.close();
        await server.close();
      }
    }, 60_000);

    it("an offloaded hybrid recall writes the fused whole set, the memory found by meaning in it", async () => {
      const server = await startServer({
        backend,
        env: embeddingsEnv(embeddings),
        args: ["--threshold", "1"],
      });
      try {
        const many = Array.from({ length: 6 }, (_, i) => ({
          title: `Car park rule ${i}`,
          content: `Level ${i}.`,
        }));
        await call(server.client, "capture_memories", { memories: [MEMORIES[0], ...many] });
        const d = jsonOf<{ file_path: string }>(
          await call(server.client, "recall_memories", {
            query: "car upkeep schedule",
            detail: "full",
          }),
        );
        const lines = readFileSync(d.file_path, "utf8").trimEnd().split("\n").slice(1);
        const records = lines.map((l) => JSON.parse(l) as { title: string; content: string });
        expect(records).toHaveLength(7);
        expect(records.map((r) => r.title)).toContain("Automobile maintenance timetable");
        expect(records.every((r) => r.content.length > 0)).toBe(true);
      } finally {
        await server.close();
      }
    }, 60_000);

    it("an endpoint that hangs or fails gives EMBEDDINGS_UNAVAILABLE within the timeout; capture still stores", async () => {
      const flaky = await startEmbeddingsServer(16);
      const server = await startServer({
        backend,
        env: embeddingsEnv(flaky, { ATLATL_EMBEDDINGS__TIMEOUT_SECONDS: "1" }),
      });
      try {
        flaky.mode = "hang";
        const slow = errorOf(await call(server.client, "recall_memories", { query: "car" }));
        expect(slow.code).toBe("EMBEDDINGS_UNAVAILABLE");
        expect(slow.message).toContain("did not answer within 1 s");

        flaky.mode = "error";
        const failing = errorOf(await call(server.client, "recall_memories", { query: "car" }));
        expect(failing.code).toBe("EMBEDDINGS_UNAVAILABLE");
        expect(failing.message).toContain("HTTP 500");

        const captured = await call(server.client, "capture_memory", { ...MEMORIES[0] });
        expect(captured.isError).toBeFalsy();
        const { id, embedding } = jsonOf<{ id: string; embedding: unknown }>(captured);
        expect(embedding).toBeNull();
        const got = jsonOf<{ embedding: unknown }>(await call(server.client, "get_memory", { id }));
        expect(got.embedding).toBeNull();
        expect(server.stderr()).toContain("stored without a vector");
        const lexical = jsonOf<Records>(
          await call(server.client, "search_memories", { query: "automobile" }),
        );
        expect(lexical.records.map((r) => r.id)).toEqual([id]);
      } finally {
        await server.close();
        await flaky.close();
      }
    }, 60_000);

    it("an endpoint that is down gives EMBEDDINGS_UNAVAILABLE", async () => {
      const gone = await startEmbeddingsServer(16);
      await gone.close();
      const server = await startServer({ backend, env: embeddingsEnv(gone) });
      try {
        const down = errorOf(await call(server.client, "recall_memories", { query: "car" }));
        expect(down.code).toBe("EMBEDDINGS_UNAVAILABLE");
        expect(down.message).toContain("cannot be reached");
      } finally {
        await server.close();
      }
    }, 60_000);
  });
}
