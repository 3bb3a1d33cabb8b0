import { setTimeout as sleep } from "node:timers/promises";
import type { MemoryStore } from "../../src/store/store.js";

/**
 * `store` whose whole-set recall (`rankAll`) pauses `delayMs` before each
 * batch of 5 hits: a recall of 30 memories takes 6 s at 1000 ms, longer than
 * the old 5 s task TTL. Everything else is the store's own.
 */
export function slowed(store: MemoryStore, delayMs: number): MemoryStore {
  async function* paced<T>(hits: AsyncIterable<T>): AsyncGenerator<T> {
    let i = 0;
    for await (const hit of hits) {
      if (i++ % 5 === 0) await sleep(delayMs);
      yield hit;
    }
  }
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === "rankAll") {
        return (query: Parameters<MemoryStore["rankAll"]>[0]) => paced(target.rankAll(query));
      }
      const value = Reflect.get(target, key, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
