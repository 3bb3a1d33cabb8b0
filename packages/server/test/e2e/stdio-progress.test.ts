/**
 * A read tool's progress on the stdio wire, both generations: the
 * notifications say what the store did (`querying the memory store`, how
 * many matches came back, `done`) and are all written before the call's
 * result. Checked line by line (raw JSON-RPC): the SDK clients hand
 * notifications to their handlers a microtask after reading them, so a
 * client drops progress that arrives in the same chunk as the response.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite.js";
import { makeMemory } from "../store/fixtures.js";
import { Lines } from "./raw-lines.js";
import { serverRoot } from "./spawn-server.js";

const MEMORIES = 12;

describe.each(["legacy", "modern"] as const)("atlatl serve over stdio (%s): progress", (era) => {
  it("writes every progress notification of a read before its result", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atlatl-progress-"));
    const dbPath = join(dir, "atlatl.db");
    const store = await openSqliteStore({ path: dbPath });
    await store.upsertMany(
      Array.from({ length: MEMORIES }, (_, i) => makeMemory({ content: `beacon ${i}` })),
    );
    await store.close();
    const child = spawn(
      process.execPath,
      ["--conditions=source", "--import", "tsx", join(serverRoot, "src/cli/main.ts"), "serve"],
      {
        cwd: serverRoot,
        env: {
          ...process.env,
          ATLATL_CONFIG: "",
          ATLATL_STORE__PATH: dbPath,
          ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: join(dir, "offload"),
        },
      },
    );
    try {
      const lines = new Lines(child, era);
      if (era === "legacy") await lines.initialize();
      const from = lines.seen.length;
      const answer = await lines.request(
        "tools/call",
        { name: "recall_memories", arguments: { query: "beacon" } },
        {},
        { progressToken: 7 },
      );
      expect(answer.result?.isError).toBeFalsy();
      const written = lines.seen.slice(from);
      expect(written.map((m) => (m.method ? m.params?.message : "result"))).toEqual([
        "querying the memory store",
        `the store returned ${MEMORIES} matches`,
        "done",
        "result",
      ]);
      expect(written.slice(0, -1).map((m) => [m.method, m.params?.progressToken])).toEqual(
        Array(3).fill(["notifications/progress", 7]),
      );
    } finally {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
