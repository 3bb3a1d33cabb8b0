/**
 * The frozen corpus: records and tasks for each scale, serialized to files with
 * a manifest of SHA-256 hashes. `buildCorpusFiles` is pure (same seed, same
 * bytes); the committed `data/` folder is its output, and a test checks both.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateRecords, type MemoryRecord } from "./records.js";
import { type FilterTask, generateTasks, type IdLookupTask, type Task } from "./tasks.js";

export const DEFAULT_SEED = 42;
export const DEFAULT_SCALES = [50, 200, 500] as const;
/** Tasks per condition in the paper (the frozen files hold this many). */
export const TASKS_PER_CONDITION = 15;

/** The package's frozen data folder. */
export const FROZEN_DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "data");

export const corpusFile = (scale: number) => `corpus-${scale}.jsonl`;
export const idTasksFile = (scale: number) => `tasks-id-${scale}.json`;
export const filterTasksFile = (scale: number) => `tasks-filter-${scale}.json`;
export const MANIFEST_FILE = "manifest.json";

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** File name to contents, manifest included. */
export function buildCorpusFiles(
  seed = DEFAULT_SEED,
  scales: readonly number[] = DEFAULT_SCALES,
  tasks = TASKS_PER_CONDITION,
): Map<string, string> {
  const files = new Map<string, string>();
  for (const scale of scales) {
    const records = generateRecords(seed, scale);
    const t = generateTasks(seed, records, scale, tasks);
    files.set(corpusFile(scale), records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    files.set(idTasksFile(scale), `${JSON.stringify(t.idLookup, null, 2)}\n`);
    files.set(filterTasksFile(scale), `${JSON.stringify(t.filter, null, 2)}\n`);
  }
  const hashes: Record<string, string> = {};
  for (const [name, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1)))
    hashes[name] = sha256(text);
  const manifest = { seed, scales: [...scales], tasks_per_scale: tasks, sha256: hashes };
  files.set(MANIFEST_FILE, `${JSON.stringify(manifest, null, 2)}\n`);
  return files;
}

/** Write the files (each atomically) to `dir`. */
export async function writeCorpusFiles(dir: string, files: Map<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, text] of files) {
    const tmp = join(dir, `.${name}.tmp`);
    await writeFile(tmp, text, { mode: 0o644 });
    await rename(tmp, join(dir, name));
  }
}

/** A loaded corpus of one scale. */
export interface Corpus {
  scale: number;
  records: MemoryRecord[];
  idLookup: IdLookupTask[];
  filter: FilterTask[];
}

/** Load one scale from a frozen folder (default: the package's `data/`). */
export async function loadCorpus(scale: number, dir = FROZEN_DATA_DIR): Promise<Corpus> {
  const text = await readFile(join(dir, corpusFile(scale)), "utf8").catch(() => {
    throw new Error(
      `no frozen corpus for scale ${scale} in ${dir}; run \`atlatl-eval corpus --scales ${scale} --out ${dir}\``,
    );
  });
  const records = text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as MemoryRecord);
  const idLookup = JSON.parse(
    await readFile(join(dir, idTasksFile(scale)), "utf8"),
  ) as IdLookupTask[];
  const filter = JSON.parse(
    await readFile(join(dir, filterTasksFile(scale)), "utf8"),
  ) as FilterTask[];
  return { scale, records, idLookup, filter };
}

export function tasksOf(corpus: Corpus, kind: Task["kind"]): Task[] {
  return kind === "id_lookup" ? corpus.idLookup : corpus.filter;
}
