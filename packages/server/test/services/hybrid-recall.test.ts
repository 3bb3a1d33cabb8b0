/**
 * HybridRecallService on every backend, with an in-process embedder over the
 * tests' concept table: fused order (a memory in both lists first), the
 * whole set equal to the pages a cursor walks, light and full reads alike,
 * and `recallIds` (the labelled-set bench's entry).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { unit } from "../../src/embeddings/embeddings-client.js";
import { MemoryEmbeddings } from "../../src/embeddings/memory-embeddings.js";
import { createServices } from "../../src/services/create-services.js";
import { fusedScore, fusedValue } from "../../src/services/fusion.js";
import { recallIds } from "../../src/services/hybrid-recall-service.js";
import type { MemoryStore } from "../../src/store/store.js";
import { BACKENDS } from "../backends/backends.js";
import { conceptVector } from "../embeddings/embeddings-server.js";

const embedder = {
  model: "concepts-v1",
  dimensions: 16,
  async embed(texts: readonly string[]) {
    return texts.map((t) => unit(conceptVector(t, 16)));
  },
};

for (const backend of BACKENDS) {
  describe(`HybridRecallService: ${backend.name}`, () => {
    let store: MemoryStore;
    let services: ReturnType<typeof createServices>;
    let embeddings: MemoryEmbeddings;
    beforeEach(async () => {
      store = await backend.open();
      const vectors = store.vectors?.();
      if (!vectors) throw new Error("no vectors");
      await vectors.open({ model: embedder.model, dimensions: embedder.dimensions });
      embeddings = new MemoryEmbeddings(vectors, embedder);
      // Every lexical match, so the fusion's order is seen whole; the default floor's cut is asserted below.
      services = createServices(store, { embeddings, relevanceFloorPercent: 0 });
    });
    afterEach(async () => {
      await store.close();
    });

    it("ranks a memory found by words and by meaning first; second in either list ties, in insertion order", async () => {
      const both = await services.memories.capture({
        title: "Car maintenance schedule",
        content: "Every spring.",
      });
      const meaning = await services.memories.capture({
        title: "Automobile upkeep timetable",
        content: "Tyres in autumn.",
      });
      const words = await services.memories.capture({
        title: "Car park rules",
        content: "Level two only.",
      });
      await services.memories.capture({ title: "Espresso ratios", content: "18 g in." });
      const { hits } = await services.recall.recall({ query: "car maintenance schedule" });
      expect(hits.map((h) => h.memory.id)).toEqual([both.id, meaning.id, words.id]);
      expect(hits.map((h) => h.score)).toEqual([
        fusedScore(fusedValue(1, 1)),
        fusedScore(fusedValue(undefined, 2)),
        fusedScore(fusedValue(2, undefined)),
      ]);
      expect(await recallIds(services.recall, "car maintenance schedule", 2)).toEqual([
        both.id,
        meaning.id,
      ]);
      // At the default relevance floor, "Car park rules" (one of three words) leaves the lexical list.
      const floored = createServices(store, { embeddings }).recall;
      expect(await recallIds(floored, "car maintenance schedule")).toEqual([both.id, meaning.id]);
    });

    it("recalls by meaning only down to the configured least similarity", async () => {
      const near = await services.memories.capture({
        title: "Vehicle maintenance",
        content: "Tyre checks.",
      });
      const query = { query: "car upkeep schedule" };
      expect((await services.recall.recall(query)).hits.map((h) => h.memory.id)).toEqual([near.id]);
      const vectors = store.vectors?.();
      if (!vectors) throw new Error("no vectors");
      const strict = createServices(store, {
        embeddings: new MemoryEmbeddings(vectors, embedder, undefined, 0.9),
      });
      expect((await strict.recall.recall(query)).hits).toEqual([]);
    });

    it("a cursor walks the whole set's order, light or full", async () => {
      for (let i = 0; i < 7; i++) {
        await services.memories.capture({
          title: i % 2 ? `Vehicle servicing note ${i}` : `Car note ${i}`,
          content: i % 3 ? "timetable" : "garden",
        });
      }
      const input = { query: "car servicing timetable", limit: 2 };
      const whole: string[] = [];
      const read = services.recall.read(input, { fields: "light" });
      for await (const h of read.stream()) whole.push(h.memory.id);
      expect(whole.length).toBe(7);
      const first = await read.firstPage(2);
      const walked = first.hits.map((h) => h.memory.id);
      let cursor = first.next_cursor;
      while (cursor) {
        const page = await services.recall.recall({ ...input, cursor });
        for (const h of page.hits) {
          expect(h.memory.content).toBeDefined();
          walked.push(h.memory.id);
        }
        cursor = page.next_cursor;
      }
      expect(walked).toEqual(whole);
      const full = await services.recall.recall({ ...input, limit: 7 });
      expect(full.hits.map((h) => h.memory.id)).toEqual(whole);
      const fullStream: { id: string; content: string }[] = [];
      for await (const h of services.recall.read(input, { fields: "full" }).stream()) {
        fullStream.push({ id: h.memory.id, content: h.memory.content });
      }
      expect(fullStream.map((h) => h.id)).toEqual(whole);
      expect(fullStream.every((h) => h.content.length > 0)).toBe(true);
    });
  });
}
