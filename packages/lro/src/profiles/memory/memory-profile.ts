/**
 * The memory profile: the specification's records (MIF memories), projected to
 * a detail level, described by its `OffloadResponse` with exactly ten recipes.
 * Its headers carry exactly the specification's eight fields (no `profile`):
 * a header without one is a memory file.
 */
import { LroError } from "../../errors.js";
import {
  DETAIL_LEVELS,
  type DetailLevel,
  MIF_SCHEMA_VERSION,
  type OffloadResponse,
} from "../../types.js";
import type { Profile } from "../profile.js";
import {
  buildMemoryDescriptor,
  type RecordStats,
  RecordStatsAccumulator,
} from "./memory-descriptor.js";
import { MEMORY_FAST_PATHS } from "./memory-fast-path.js";
import {
  DEFAULT_RECIPE_PARAMS,
  type MemoryRecipeSpec,
  memoryRecipe,
  memoryRecipes,
} from "./memory-recipes.js";
import { projectRecord } from "./project.js";

/** Name of the memory profile. */
export const MEMORY_PROFILE = "memory";

function isDetail(d: unknown): d is DetailLevel {
  return typeof d === "string" && (DETAIL_LEVELS as readonly string[]).includes(d);
}

function withExamples(spec: MemoryRecipeSpec): MemoryRecipeSpec {
  const examples: Partial<Record<string, string>> = {};
  for (const p of spec.params) examples[p] = DEFAULT_RECIPE_PARAMS[p];
  return { ...spec, examples };
}

/** The memory profile. */
export const memoryProfile: Profile<OffloadResponse, RecordStats> = {
  name: MEMORY_PROFILE,
  schemaVersion: MIF_SCHEMA_VERSION,
  normalizeDetail: (detail) => (isDetail(detail) ? detail : "full"),
  project: (record, detail) => projectRecord(record, detail as DetailLevel),
  accumulate: () => new RecordStatsAccumulator(),
  headerFields: () => ({}),
  fastPaths: MEMORY_FAST_PATHS,
  describe: (input) =>
    buildMemoryDescriptor({
      filePath: input.filePath,
      operation: input.operation,
      detail: input.detail as DetailLevel,
      count: input.count,
      estimatedTokens: input.estimatedTokens,
      stats: input.stats,
      scores: input.scores,
      nativeExtraction: input.nativeExtraction,
    }),
  recipe(header, number) {
    const detail = header.detail;
    if (!isDetail(detail)) {
      // Recipes 1-8 do not depend on the level; 9 and 10 do.
      const spec = number <= 8 ? memoryRecipes("full")[number - 1] : undefined;
      if (spec) return withExamples(spec);
      return new LroError(
        "INVALID_ARGUMENT",
        `recipe ${number} depends on the detail level (light, medium or full), and this file's header says ${JSON.stringify(detail)}; use a custom query instead`,
      );
    }
    const spec = memoryRecipe(detail, number);
    return spec
      ? withExamples(spec)
      : new LroError("INVALID_ARGUMENT", `memory files have recipes 1 to 10 (got ${number})`);
  },
};
