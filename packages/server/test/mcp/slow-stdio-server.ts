/**
 * A test fixture process: atlatl's stdio serving (`serveStdioApp`, what
 * `atlatl serve` runs) over a store whose whole-set recall is slowed down:
 * it pauses `ATLATL_TEST_DELAY_MS` before each batch of 5 hits, so a recall
 * of 30 memories takes 6 s at 1000 ms. Store and offload directory from the
 * usual `ATLATL_*` environment.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { openApp } from "../../src/app/open-app.js";
import { serveStdioApp } from "../../src/cli/commands/serve-stdio.js";
import { createServices } from "../../src/services/create-services.js";
import type { MemoryStore } from "../../src/store/store.js";

const delayMs = Number(process.env.ATLATL_TEST_DELAY_MS ?? "1000");

function slowed(store: MemoryStore): MemoryStore {
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

const app = await openApp({ logEvents: false });
serveStdioApp({ ...app, services: createServices(slowed(app.store)) });
