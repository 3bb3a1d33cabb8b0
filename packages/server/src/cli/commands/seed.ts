import type { Command } from "commander";
import { seedStore } from "../../seed/seed-store.js";
import { startProgress } from "../progress.js";
import { withWritableApp } from "../with-app.js";

/** `atlatl seed --count N`: a realistic synthetic corpus (deterministic for a seed). */
export async function runSeed(opts: { count: number; seed: number }, cmd: Command): Promise<void> {
  const started = performance.now();
  const written = await withWritableApp(cmd, async (app) => {
    const bar = startProgress("seed", opts.count);
    try {
      return await seedStore(app.store, {
        count: opts.count,
        seed: opts.seed,
        onProgress: (p) => bar.update(p.done, p.total),
      });
    } finally {
      bar.stop();
    }
  });
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`seeded ${written} memories in ${seconds.toFixed(2)} s\n`);
}
