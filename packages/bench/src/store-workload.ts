/**
 * The read workload of the store benchmarks (`server-store`, `server-postgres`),
 * defined once so both backends are timed on the same queries the same way.
 */
import type { Memory, Services } from "atlatl";
import { summarize, type Timing } from "./harness.js";

/** Recall/search queries per run. */
const QUERIES = 40;

const STOP = new Set(
  "with from that this when have into over under unless across after before their there which about than then them they were what your will would should could also only just more most some such each other every".split(
    " ",
  ),
);

/** Deterministic pick of `n` items spread over `items`. */
function spread<T>(items: readonly T[], n: number): T[] {
  const step = Math.max(1, Math.floor(items.length / n));
  return Array.from({ length: n }, (_, i) => items[(i * step + 7) % items.length] as T);
}

/** Two content words of titles of memories spread over the corpus, as recall queries. */
export function titleQueries(memories: readonly Memory[]): string[] {
  const out: string[] = [];
  for (const m of spread(memories, QUERIES * 2)) {
    const words = (m.title.toLowerCase().match(/[a-z]{4,}/g) ?? []).filter((w) => !STOP.has(w));
    if (words.length >= 2) out.push(`${words[0]} ${words[1]}`);
    if (out.length === QUERIES) break;
  }
  return out;
}

/** Time `fn` once per input, `rounds` times over the inputs (the first round warms up). */
export async function timeEach<T>(
  inputs: readonly T[],
  fn: (input: T) => Promise<unknown>,
  rounds = 3,
): Promise<Timing> {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const input of inputs) {
      const start = performance.now();
      await fn(input);
      if (r > 0) samples.push(performance.now() - start);
    }
  }
  return summarize(samples);
}

/** Walk `pages` consecutive pages of a listing, timing each (the first two warm up). */
export async function walkList(
  services: Services,
  input: Parameters<Services["list"]["list"]>[0],
  pages: number,
): Promise<Timing> {
  const samples: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < pages; i++) {
    const start = performance.now();
    const page = await services.list.list({ ...input, cursor });
    samples.push(performance.now() - start);
    cursor = page.next_cursor ?? undefined;
  }
  return summarize(samples.slice(2));
}
