/**
 * `atlatl embed` on every backend: memories stored while embeddings were off
 * get vectors (then hybrid recall finds them by meaning), a second run embeds
 * nothing, a changed model is refused (by `embed` and by a read command) until
 * `embed --reset` rebinds the store.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS } from "../backends/backends.js";
import { call, jsonOf, serverRoot, startServer } from "../e2e/spawn-server.js";
import {
  type EmbeddingsServer,
  embeddingsEnv,
  startEmbeddingsServer,
} from "../embeddings/embeddings-server.js";

const cli = join(serverRoot, "src/cli/main.ts");

/** Run the CLI without blocking this process (the embeddings server answers from it). */
function atlatl(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=source", "--import", "tsx", cli, ...args],
      {
        cwd: serverRoot,
        env: { ...process.env, ATLATL_CONFIG: "", ...env },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let embeddings: EmbeddingsServer;
let dir: string;
beforeAll(async () => {
  embeddings = await startEmbeddingsServer(16);
  dir = mkdtempSync(join(tmpdir(), "atlatl-embed-"));
});
afterAll(async () => {
  await embeddings.close();
  rmSync(dir, { recursive: true, force: true });
});

for (const backend of BACKENDS) {
  describe(`atlatl embed: ${backend.name}`, () => {
    it("backfills, resumes with nothing to do, refuses a changed model until --reset", async () => {
      const target = await backend.serverConfig(mkdtempSync(join(dir, "s-")));
      try {
        const plain = await startServer({ storeArgs: target.args });
        try {
          for (const m of [
            { title: "Automobile maintenance timetable", content: "Oil every 10,000 km." },
            { title: "Espresso ratios", content: "18 g in, 36 g out." },
            { title: "Garden watering schedule", content: "Tomatoes every evening." },
          ]) {
            expect((await call(plain.client, "capture_memory", m)).isError).toBeFalsy();
          }
        } finally {
          await plain.close();
        }

        const env = embeddingsEnv(embeddings);
        const first = await atlatl([...target.args, "embed"], env);
        expect(first.stderr).toContain("embedded 3 of 3 memories with concepts-v1");
        expect(first.code).toBe(0);
        const texts = embeddings.texts;
        const again = await atlatl([...target.args, "embed"], env);
        expect(again.code).toBe(0);
        expect(again.stderr).toContain("embedded 0 of 3 memories");
        expect(embeddings.texts).toBe(texts);

        const hybrid = await startServer({ storeArgs: target.args, env });
        try {
          const found = jsonOf<{ records: { title: string }[] }>(
            await call(hybrid.client, "recall_memories", { query: "car upkeep schedule" }),
          );
          expect(found.records.map((r) => r.title)).toContain("Automobile maintenance timetable");
        } finally {
          await hybrid.close();
        }

        const other = embeddingsEnv(embeddings, { ATLATL_EMBEDDINGS__MODEL: "concepts-v2" });
        for (const args of [["embed"], ["recall", "car"]]) {
          const refused = await atlatl([...target.args, ...args], other);
          expect(refused.code, args.join(" ")).toBe(1);
          expect(refused.stderr).toContain("EMBEDDINGS_MISMATCH");
          expect(refused.stderr).toContain("made with model concepts-v1 (16 dimensions)");
          expect(refused.stderr).toContain("atlatl embed --reset");
        }
        const reset = await atlatl([...target.args, "embed", "--reset"], other);
        expect(reset.code).toBe(0);
        expect(reset.stderr).toContain("embedded 3 of 3 memories with concepts-v2");
      } finally {
        await target.cleanup();
      }
    }, 120_000);
  });
}
