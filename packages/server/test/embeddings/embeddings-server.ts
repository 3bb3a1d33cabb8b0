/**
 * A deterministic OpenAI-compatible embeddings server on 127.0.0.1 for tests:
 * each word of a known concept adds 1 to that concept's dimension (synonyms
 * share one: car/automobile, upkeep/maintenance, schedule/timetable), any
 * other word to one of the remaining dimensions by a hash of its letters. So
 * "car upkeep schedule" and "Automobile maintenance timetable" get the same
 * vector while sharing no word. `mode` makes it fail: `hang` accepts and never
 * answers, `error` answers HTTP 500.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Words that mean the same thing share a dimension. */
export const CONCEPTS: readonly (readonly string[])[] = [
  ["car", "cars", "automobile", "automobiles", "vehicle"],
  ["upkeep", "maintenance", "servicing", "service"],
  ["schedule", "timetable", "calendar"],
  ["coffee", "espresso", "brew", "brewing"],
  ["database", "postgres", "sqlite", "store"],
  ["garden", "plants", "watering"],
];

const CONCEPT_OF = new Map<string, number>(
  CONCEPTS.flatMap((words, dim) => words.map((w) => [w, dim] as const)),
);

/** The vector of `text` in `dimensions` (not normalised: the client scales it). */
export function conceptVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  const spare = dimensions - CONCEPTS.length;
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const concept = CONCEPT_OF.get(word);
    if (concept !== undefined) v[concept] = (v[concept] ?? 0) + 1;
    else {
      let h = 0;
      for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0;
      const at = CONCEPTS.length + (h % spare);
      v[at] = (v[at] ?? 0) + 1;
    }
  }
  return v;
}

export interface EmbeddingsServer {
  /** Base URL, as `[embeddings] url` takes it (`http://127.0.0.1:PORT/v1`). */
  url: string;
  /** Embeddings requests answered or held so far. */
  requests: number;
  /** Texts embedded so far. */
  texts: number;
  mode: "ok" | "hang" | "error";
  close(): Promise<void>;
}

/** Start the server; `dimensions` is the length of every vector it returns. */
export async function startEmbeddingsServer(
  dimensions = 16,
  mode: EmbeddingsServer["mode"] = "ok",
): Promise<EmbeddingsServer> {
  const held: ServerResponse[] = [];
  const state = { requests: 0, texts: 0, mode };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      res.writeHead(404).end();
      return;
    }
    state.requests++;
    if (state.mode === "hang") {
      held.push(res);
      return;
    }
    if (state.mode === "error") {
      res
        .writeHead(500, { "content-type": "application/json" })
        .end('{"error":"model not loaded"}');
      return;
    }
    const { model, input } = JSON.parse(body) as { model: string; input: string | string[] };
    const texts = typeof input === "string" ? [input] : input;
    state.texts += texts.length;
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        object: "list",
        model,
        data: texts.map((t, index) => ({
          object: "embedding",
          index,
          embedding: conceptVector(t, dimensions),
        })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      }),
    );
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    get texts() {
      return state.texts;
    },
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, "close").catch(() => undefined);
    },
  } as EmbeddingsServer;
}

/** The environment that configures atlatl for `server`. */
export function embeddingsEnv(
  server: { url: string },
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    ATLATL_EMBEDDINGS__URL: server.url,
    ATLATL_EMBEDDINGS__MODEL: "concepts-v1",
    ATLATL_EMBEDDINGS__DIMENSIONS: "16",
    ...overrides,
  };
}
