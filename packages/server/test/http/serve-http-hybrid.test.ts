/**
 * Hybrid recall over REST: `/v1/recall` finds a memory by meaning, and answers
 * 503 with the embeddings endpoint's failure (retryable, like a stalled
 * database) when that endpoint is down; `/v1/search` stays lexical and answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EmbeddingsServer,
  embeddingsEnv,
  startEmbeddingsServer,
} from "../embeddings/embeddings-server.js";
import { raw } from "./raw-request.js";
import { type HttpServer, startHttpServer } from "./spawn-http.js";

let embeddings: EmbeddingsServer;
let s: HttpServer;
beforeAll(async () => {
  embeddings = await startEmbeddingsServer(16);
  s = await startHttpServer({ env: embeddingsEnv(embeddings) });
}, 60_000);
afterAll(async () => {
  if (s) expect(await s.stop()).toBe(0);
  await embeddings.close();
});

describe("hybrid recall over REST", () => {
  it("recalls by meaning, and answers 503 EMBEDDINGS_UNAVAILABLE while the endpoint fails", async () => {
    const created = await raw(s.url, "/v1/memories", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Automobile maintenance timetable", content: "Oil." }),
    });
    expect(created.status).toBe(201);
    const found = await raw(s.url, `/v1/recall?q=${encodeURIComponent("car upkeep schedule")}`);
    expect(found.status).toBe(200);
    expect(JSON.stringify(found.json())).toContain("Automobile maintenance timetable");

    embeddings.mode = "error";
    try {
      const down = await raw(s.url, "/v1/recall?q=car");
      expect(down.status).toBe(503);
      expect(down.json().detail).toContain("answered HTTP 500");
      expect((await raw(s.url, "/v1/search?q=automobile")).status).toBe(200);
    } finally {
      embeddings.mode = "ok";
    }
  }, 60_000);
});
