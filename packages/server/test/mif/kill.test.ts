import { spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { writeMifDocuments } from "../../src/mif/export.js";
import { generateCorpus } from "../../src/seed/generate.js";
import { openStore } from "../../src/store/open-store.js";
import { BACKENDS } from "../backends/backends.js";
import { tempDir } from "./helpers.js";

const CHILD = fileURLToPath(new URL("./import-child.ts", import.meta.url));
const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
const TOTAL = 20_000;
const BATCH = 500;

async function writeCorpus(file: string): Promise<string[]> {
  const out = createWriteStream(file);
  const ids: string[] = [];
  function* corpus() {
    for (const memory of generateCorpus({ count: TOTAL, seed: 99 })) {
      ids.push(memory.id);
      yield memory;
    }
  }
  await writeMifDocuments(corpus(), "jsonl", out);
  out.end();
  await once(out, "finish");
  return ids;
}

interface ChildRun {
  acknowledged: string[];
  batches: number;
  done: boolean;
  killed: boolean;
}

/** Run the importer; with `killAfterBatches`, SIGKILL it once that many batches are acknowledged. */
function runImport(db: string, file: string, killAfterBatches?: number): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=source", "--import", "tsx", CHILD, db, file, String(BATCH)],
      {
        cwd: REPO,
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    const run: ChildRun = { acknowledged: [], batches: 0, done: false, killed: false };
    let buffer = "";
    let errors = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (data: string) => {
      buffer += data;
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
        if (line.startsWith("ACK ")) {
          run.acknowledged.push(...line.slice(4).split(","));
          run.batches++;
          if (killAfterBatches !== undefined && run.batches >= killAfterBatches && !run.killed) {
            run.killed = child.kill("SIGKILL");
          }
        } else if (line.startsWith("DONE")) {
          run.done = true;
        } else {
          errors += `${line}\n`;
        }
      }
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL" || code === 0) resolve(run);
      else reject(new Error(`importer exited with ${code}: ${errors}`));
    });
  });
}

describe.each(BACKENDS)("a bulk import killed mid-way ($name)", (backend) => {
  it("keeps every acknowledged memory, never half a batch, and a re-run completes without duplicates", async () => {
    const dir = tempDir();
    const file = join(dir, "corpus.jsonl");
    const target = await backend.serverConfig(dir);
    const db = target.config.url ?? target.config.path;
    const ids = await writeCorpus(file);

    const killed = await runImport(db, file, 5);
    expect(killed.killed).toBe(true);
    expect(killed.done).toBe(false);
    expect(killed.acknowledged.length).toBeGreaterThanOrEqual(5 * BATCH);

    const store = await openStore(target.config);
    try {
      const count = await store.count({ status: "any" });
      expect(count).toBeLessThan(TOTAL); // really killed mid-import
      expect(count).toBeGreaterThanOrEqual(killed.acknowledged.length);
      expect(count % BATCH).toBe(0); // whole transactions only
      for (const id of killed.acknowledged) expect(await store.get(id)).toBeDefined();
    } finally {
      await store.close();
    }

    const rerun = await runImport(db, file);
    expect(rerun.done).toBe(true);
    const after = await openStore(target.config);
    try {
      expect(await after.count({ status: "any" })).toBe(TOTAL);
      const stored = new Set<string>();
      for await (const memory of after.iterate({ status: "any" })) stored.add(memory.id);
      expect(stored.size).toBe(TOTAL);
      for (const id of ids) expect(stored.has(id)).toBe(true);
    } finally {
      await after.close();
      await target.cleanup();
    }
  }, 180_000);
});
