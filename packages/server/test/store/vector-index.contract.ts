/**
 * The VectorIndex contract (`src/store/vector-index.ts`): what every backend's
 * vectors must do. `contract.test.ts` calls it once per backend; the engine
 * (sqlite-vec, pgvector, a real[] scan) is a capability, not a branch here.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbeddingsError, unit } from "../../src/embeddings/embeddings-client.js";
import { MemoryEmbeddings } from "../../src/embeddings/memory-embeddings.js";
import { memoryToMif } from "../../src/mif/to-mif.js";
import { validateMifDocument } from "../../src/mif/validate.js";
import type { Memory } from "../../src/model/memory.js";
import type { MemoryStore } from "../../src/store/store.js";
import type { VectorIndex } from "../../src/store/vector-index.js";
import type { TestBackend } from "../backends/backends.js";
import { conceptVector } from "../embeddings/embeddings-server.js";
import { makeMemory } from "./fixtures.js";

const SPACE = { model: "concepts-v1", dimensions: 16 };

/** An embedder over the test server's concept table, in process. */
const embedder = {
  model: SPACE.model,
  dimensions: SPACE.dimensions,
  calls: 0,
  async embed(texts: readonly string[]) {
    this.calls++;
    return texts.map((t) => unit(conceptVector(t, SPACE.dimensions)));
  },
};

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "resolved";
  } catch (err) {
    return String((err as { code?: unknown }).code);
  }
}

export function describeVectorIndexContract(backend: TestBackend): void {
  describe(`VectorIndex contract: ${backend.name}`, () => {
    let store: MemoryStore;
    let vectors: VectorIndex;
    let embeddings: MemoryEmbeddings;
    beforeEach(async () => {
      store = await backend.open();
      const index = store.vectors?.();
      if (!index) throw new Error(`${backend.name} keeps no vectors`);
      vectors = index;
      await vectors.open(SPACE);
      embeddings = new MemoryEmbeddings(vectors, embedder);
    });
    afterEach(async () => {
      await store.close();
    });

    const car = () =>
      makeMemory({ title: "Automobile maintenance timetable", content: "Oil every 10,000 km." });
    const coffee = () => makeMemory({ title: "Espresso ratios", content: "18 g in, 36 g out." });

    it("finds a memory by meaning, the nearest first, and fills its MIF embedding reference", async () => {
      const a = car();
      const b = coffee();
      await store.insertMany([a, b]);
      expect(await embeddings.index([a, b])).toBe(2);
      const hits = await vectors.nearest({
        vector: await embeddings.queryVector("car upkeep schedule"),
        limit: 10,
        minSimilarity: 0.5,
      });
      expect(hits.map((h) => h.id)).toEqual([a.id]);
      expect(hits[0]?.similarity).toBeGreaterThan(0.5);
      const stored = await store.get(a.id);
      expect(stored?.embedding).toMatchObject({
        model: SPACE.model,
        dimensions: SPACE.dimensions,
        normalized: true,
        vector_uri: `urn:atlatl:vector:${a.id}`,
      });
      expect((await store.get(b.id))?.embedding?.model).toBe(SPACE.model);
      const mif = memoryToMif(stored as Memory);
      expect(validateMifDocument(mif)).toEqual({ ok: true });
      expect(mif.embedding).toMatchObject({
        "@type": "EmbeddingReference",
        model: SPACE.model,
        dimensions: SPACE.dimensions,
        vectorUri: `urn:atlatl:vector:${a.id}`,
      });
      expect(await vectors.count()).toBe(2);
      expect(vectors.capabilities.exact).toBe(true);
    });

    it("applies recall's filters and the horizon to nearest memories", async () => {
      const a = car();
      const archived = makeMemory({
        title: "Vehicle servicing calendar",
        content: "Archived.",
        status: "archived",
        namespace: "_semantic/old",
      });
      await store.insertMany([a, archived]);
      await embeddings.index([a, archived]);
      const vector = await embeddings.queryVector("car upkeep schedule");
      const ids = async (q: Partial<Parameters<VectorIndex["nearest"]>[0]>) =>
        (await vectors.nearest({ vector, limit: 10, minSimilarity: 0.5, ...q })).map((h) => h.id);
      expect(await ids({})).toEqual([a.id]);
      expect((await ids({ filter: { status: "any" } })).sort()).toEqual([a.id, archived.id].sort());
      expect(await ids({ filter: { status: "any", namespace: "_semantic/old" } })).toEqual([
        archived.id,
      ]);
      const first = (await vectors.candidates(0, 1))[0];
      expect(await ids({ filter: { status: "any" }, horizon: first?.seq })).toEqual([a.id]);
    });

    it("never returns a deleted memory's vector, and prunes it", async () => {
      const a = car();
      await store.insert(a);
      await embeddings.index([a]);
      await store.delete(a.id);
      const vector = await embeddings.queryVector("car");
      expect(await vectors.nearest({ vector, limit: 10, minSimilarity: 0 })).toEqual([]);
      expect(await vectors.prune()).toBe(1);
      expect(await vectors.prune()).toBe(0);
    });

    it("backfills only memories without a current vector, and again after an edit", async () => {
      const memories = [car(), coffee(), makeMemory({ title: "Garden watering", content: "x" })];
      await store.insertMany(memories);
      await embeddings.index([memories[0] as (typeof memories)[0]]);
      const first = await embeddings.backfill(3);
      expect(first).toMatchObject({ scanned: 3, embedded: 2 });
      expect(await embeddings.backfill(3)).toMatchObject({ scanned: 3, embedded: 0 });
      const edited = { ...(memories[1] as (typeof memories)[1]), content: "Now pour-over." };
      await store.update(edited);
      expect(await embeddings.backfill(3)).toMatchObject({ scanned: 3, embedded: 1 });
    });

    it("an interrupted backfill keeps what it committed and resumes after it", async () => {
      const memories = Array.from({ length: 300 }, (_, i) =>
        makeMemory({ title: `Car note ${i}`, content: `servicing ${i}` }),
      );
      await store.insertMany(memories);
      let calls = 0;
      const failing = {
        ...embedder,
        async embed(texts: readonly string[]) {
          if (++calls === 2) throw new EmbeddingsError("EMBEDDINGS_UNAVAILABLE", "gone");
          return embedder.embed(texts);
        },
      };
      const interrupted = new MemoryEmbeddings(vectors, failing);
      expect(await codeOf(interrupted.backfill(300))).toBe("EMBEDDINGS_UNAVAILABLE");
      const kept = await vectors.count();
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(300);
      expect(await embeddings.backfill(300)).toMatchObject({
        scanned: 300,
        embedded: 300 - kept,
      });
      expect(await vectors.count()).toBe(300);
    });

    it("removing a vector clears the memory's reference", async () => {
      const a = car();
      await store.insert(a);
      await embeddings.index([a]);
      await vectors.remove([a.id]);
      expect((await store.get(a.id))?.embedding).toBeNull();
      expect(await vectors.count()).toBe(0);
    });

    it("refuses another model or length, and a reset rebinds the store and drops every vector", async () => {
      const a = car();
      const imported = makeMemory({
        title: "Imported with its own vector elsewhere",
        embedding: {
          model: "text-embedding-3-small",
          model_version: null,
          dimensions: 1536,
          source_text: null,
          vector_uri: "https://vectors.example/1",
          normalized: null,
        },
      });
      await store.insertMany([a, imported]);
      await embeddings.index([a]);
      expect(await vectors.space()).toEqual(SPACE);
      expect(await codeOf(vectors.open({ model: "other", dimensions: 16 }))).toBe(
        "EMBEDDINGS_MISMATCH",
      );
      expect(await codeOf(vectors.open({ model: SPACE.model, dimensions: 8 }))).toBe(
        "EMBEDDINGS_MISMATCH",
      );
      expect(await codeOf(vectors.open({ ...SPACE, dimensions: 8 }, { readOnly: true }))).toBe(
        "EMBEDDINGS_MISMATCH",
      );
      expect(await codeOf(vectors.open(SPACE))).toBe("resolved");
      await vectors.open({ model: "other", dimensions: 8 }, { reset: true });
      expect(await vectors.space()).toEqual({ model: "other", dimensions: 8 });
      expect(await vectors.count()).toBe(0);
      expect((await store.get(a.id))?.embedding).toBeNull();
      expect((await store.get(imported.id))?.embedding?.vector_uri).toBe(
        "https://vectors.example/1",
      );
    });
  });
}
