/**
 * The task store contract on PostgreSQL (each test in a schema of its own,
 * a second store on the same schema as the other instance), and the sweep:
 * an expired finished task is deleted once across instances. Declared when
 * `ATLATL_TEST_PG_URL` is set or CI requires it: on CI without the URL these
 * tests fail.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { openPostgresTaskStore } from "../../../src/mcp/tasks/postgres/open-postgres-task-store.js";
import { dropSchema, freshSchema, PG_ENABLED, pgUrl } from "../../backends/backends.js";
import { type TaskStoreOptions, taskStoreContract } from "./task-store.contract.js";

const openOn = (schema: string, options: TaskStoreOptions = {}) =>
  openPostgresTaskStore<string>({ url: pgUrl(), schema, sweep: false, ...options });

describe.runIf(PG_ENABLED)("postgres task store", () => {
  taskStoreContract({
    name: "postgres",
    shared: true,
    async open(options) {
      const schema = freshSchema();
      return {
        store: await openOn(schema, options),
        again: () => openOn(schema, options),
        cleanup: () => dropSchema(schema),
      };
    },
  });

  it("postgres: the sweep deletes an expired finished task once, whichever instance runs it; a working one never", async () => {
    const schema = freshSchema();
    const a = await openOn(schema);
    const b = await openOn(schema);
    try {
      const finished = await a.start("alice", 50, async () => ({
        kind: "result",
        value: "v",
        failed: false,
      }));
      await a.settled("alice", finished.taskId);
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const working = await a.start("alice", 50, async () => {
        await gate;
        return { kind: "result", value: "w", failed: false };
      });
      await sleep(150);
      const swept = await Promise.all([a.sweep(), b.sweep()]);
      expect(swept.reduce((x, y) => x + y, 0)).toBe(1);
      expect(await a.sweep()).toBe(0);
      expect((await b.get("alice", working.taskId))?.status).toBe("working");
      release();
    } finally {
      await a.close();
      await b.close();
      await dropSchema(schema);
    }
  });
});
