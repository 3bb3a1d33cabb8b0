/**
 * One PostgreSQL pool per instance: a real `atlatl serve --http` on
 * PostgreSQL with the shared offload store serves memories, offload files and
 * tasks at once, and never holds more connections than `[store] pool_size`
 * (counted in `pg_stat_activity` by the `application_name` its URL sets).
 * Declared when `ATLATL_TEST_PG_URL` is set or CI requires it (then it fails
 * without it).
 */
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, PG_ENABLED, pgUrl, type StoreTarget } from "../backends/backends.js";
import { modern } from "../http/raw-request.js";
import { type HttpServer, startHttpServer } from "../http/spawn-http.js";

const TOKEN = "one-pool-token";
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const POOL_SIZE = 2;

describe.runIf(PG_ENABLED)("one PostgreSQL pool per instance", () => {
  let target: StoreTarget;
  let server: HttpServer;
  let admin: pg.Client;
  let name: string;
  beforeAll(async () => {
    const postgres = BACKENDS.find((x) => x.name === "postgres");
    if (!postgres) throw new Error("the postgres backend is not declared");
    target = await postgres.serverConfig("");
    const url = new URL(target.config.url as string);
    name = `atlatl-one-pool-${Date.now()}`;
    url.searchParams.set("application_name", name);
    server = await startHttpServer({
      tokens: TOKEN,
      store: { args: ["--database", url.toString()], env: {} },
      env: {
        ATLATL_OFFLOAD_STORE__BACKEND: "postgres",
        ATLATL_STORE__POOL_SIZE: String(POOL_SIZE),
        // Every recall is offloaded: the shared offload store publishes each file.
        ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS: "1",
      },
      seed: 50,
    });
    admin = new pg.Client({ connectionString: pgUrl() });
    await admin.connect();
  }, 60_000);
  afterAll(async () => {
    await admin?.end();
    if (server && server.child.exitCode === null) await server.stop();
    await target?.cleanup();
  });

  const connections = async () =>
    Number(
      (
        await admin.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1",
          [name],
        )
      ).rows[0]?.n,
    );

  it(`memories, offload files and tasks at once: never more than [store] pool_size (${POOL_SIZE}) connections`, async () => {
    const recall = (task: boolean) =>
      modern(
        server.url,
        "tools/call",
        { name: "recall_memories", arguments: { query: "", limit: 50, detail: "full" } },
        { token: TOKEN, ...(task ? { capabilities: TASKS } : {}) },
      );
    const opened = await connections();
    expect(opened).toBeGreaterThan(0);
    expect(opened).toBeLessThanOrEqual(POOL_SIZE);
    const answers = await Promise.all([...Array(8).keys()].map((i) => recall(i % 2 === 0)));
    let most = await connections();
    const taskIds = answers.flatMap((r) => {
      expect(r.status, r.body).toBe(200);
      const result = r.message.result as { resultType?: string; taskId?: string } | undefined;
      return result?.resultType === "task" && result.taskId ? [result.taskId] : [];
    });
    expect(taskIds).toHaveLength(4);
    for (const taskId of taskIds) {
      let status = "working";
      for (let i = 0; status === "working" && i < 150; i++) {
        const got = await modern(
          server.url,
          "tasks/get",
          { taskId },
          { token: TOKEN, capabilities: TASKS },
        );
        status = (got.message.result as { status: string }).status;
        most = Math.max(most, await connections());
        if (status === "working") await sleep(200);
      }
      expect(status).toBe("completed");
    }
    expect(most).toBeLessThanOrEqual(POOL_SIZE);
  });
});
