/**
 * List prices in USD per million tokens, for the cost estimate only. A price
 * file (`--prices prices.json`, same shape) overrides or adds entries; a model
 * matches the longest key its name starts with. Local and scripted models cost 0.
 */
import { readFile } from "node:fs/promises";
import type { Usage } from "./types.js";

export interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export type PriceTable = Record<string, Price>;

/** Published list prices (USD / 1M tokens) as of 2025-11. */
export const DEFAULT_PRICES: PriceTable = {
  "claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  "claude-sonnet-4-5": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-opus-4-5": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  "gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 },
  "gpt-5": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
};

export function priceOf(model: string, table: PriceTable = DEFAULT_PRICES): Price | undefined {
  const name = model.includes(":") ? model.slice(model.indexOf(":") + 1) : model;
  const key = Object.keys(table)
    .filter((k) => name.startsWith(k))
    .sort((a, b) => b.length - a.length)[0];
  return key === undefined ? undefined : table[key];
}

/** USD for `usage` at `price` (0 when the model has no price). */
export function costOf(usage: Usage, price: Price | undefined): number {
  if (!price) return 0;
  return (
    (usage.input * price.input +
      usage.output * price.output +
      usage.cacheRead * price.cacheRead +
      usage.cacheWrite * price.cacheWrite) /
    1_000_000
  );
}

/** The defaults with a price file's entries laid over them. */
export async function loadPrices(file: string | undefined): Promise<PriceTable> {
  if (!file) return DEFAULT_PRICES;
  const extra = JSON.parse(await readFile(file, "utf8")) as PriceTable;
  for (const [k, p] of Object.entries(extra)) {
    for (const f of ["input", "output", "cacheRead", "cacheWrite"] as const) {
      if (typeof p[f] !== "number" || p[f] < 0) {
        throw new Error(`${file}: ${k}.${f} must be a number >= 0 (USD per million tokens)`);
      }
    }
  }
  return { ...DEFAULT_PRICES, ...extra };
}
