/**
 * The memory profile's descriptor: the specification's `OffloadResponse` with
 * summary, line schema, exactly ten ready-to-run recipes and guidance.
 */

import type { DetailLevel, JqRecipe, OffloadResponse, OffloadSummary } from "../../types.js";
import { nativeGuidance, shellGuidance } from "./guidance.js";
import { memoryRecipes, type RecipeParamName, renderRecipeCommand } from "./memory-recipes.js";
import { memoryLineSchema } from "./memory-schema.js";

/** Frequencies the descriptor needs, gathered in one pass over the records. */
export interface RecordStats {
  /** Namespaces by frequency, most frequent first (ties by name). */
  namespaces: string[];
  /** Most common `memory_type`, if any record has one. */
  topMemoryType: string | undefined;
  /** Most common tag, if any record has tags. */
  topTag: string | undefined;
  /**
   * The fields every record carries (JSON leaves an undefined one out of its
   * line), in the first record's order; undefined when there are no records.
   */
  fields?: readonly string[] | undefined;
}

function ranked(counts: Map<string, number>): string[] {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([k]) => k);
}

function bump(counts: Map<string, number>, key: unknown): void {
  if (typeof key === "string") counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** Counts namespaces, memory types and tags record by record (no need to keep them). */
export class RecordStatsAccumulator {
  private readonly ns = new Map<string, number>();
  private readonly types = new Map<string, number>();
  private readonly tags = new Map<string, number>();
  /** The fields every record so far carries. */
  private common: string[] | undefined;

  add(record: object): void {
    const r = record as Record<string, unknown>;
    bump(this.ns, r.namespace);
    bump(this.types, r.memory_type);
    if (Array.isArray(r.tags)) for (const t of r.tags) bump(this.tags, t);
    const common = this.common;
    if (common === undefined) {
      this.common = Object.keys(r).filter((k) => r[k] !== undefined);
      return;
    }
    for (let i = 0; i < common.length; i++) {
      if (r[common[i] as string] === undefined) {
        this.common = common.filter((k) => r[k] !== undefined);
        return;
      }
    }
  }

  result(): RecordStats {
    return {
      namespaces: ranked(this.ns),
      topMemoryType: ranked(this.types)[0],
      topTag: ranked(this.tags)[0],
      fields: this.common,
    };
  }
}

/** Count namespaces, memory types and tags of the (projected) records. */
export function recordStats(records: readonly object[]): RecordStats {
  const acc = new RecordStatsAccumulator();
  for (const r of records) acc.add(r);
  return acc.result();
}

/**
 * Parameter values for the shell commands, drawn from the data so the commands
 * return something: the top namespace's first segment (recipe 2), the most
 * common memory type (5), the most common tag (7). Others keep their defaults.
 */
export function recipeParamsFromStats(
  stats: RecordStats,
): Partial<Record<RecipeParamName, string>> {
  const params: Partial<Record<RecipeParamName, string>> = {};
  const ns = stats.namespaces[0];
  if (ns !== undefined) params.namespace = ns.split("/")[0] ?? ns;
  if (stats.topMemoryType !== undefined) params.memory_type = stats.topMemoryType;
  if (stats.topTag !== undefined) params.tag = stats.topTag;
  return params;
}

/** Significant digits of `score_range`: enough to compare hits, not 17 digits of noise (~10 o200k tokens). */
const SCORE_DIGITS = 3;

/** `[min, max]` of finite scores to {@link SCORE_DIGITS} significant digits, or null when there are none. */
export function scoreRange(scores: readonly number[] | undefined): [number, number] | null {
  if (!scores) return null;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const s of scores) {
    if (typeof s !== "number" || !Number.isFinite(s)) continue;
    if (s < min) min = s;
    if (s > max) max = s;
  }
  if (min === Number.POSITIVE_INFINITY) return null;
  return [Number(min.toPrecision(SCORE_DIGITS)), Number(max.toPrecision(SCORE_DIGITS))];
}

/** The ten recipes at `detail`, rendered against `filePath` with `params`. */
export function renderMemoryRecipes(
  detail: DetailLevel,
  filePath: string,
  params: Partial<Record<RecipeParamName, string>> = {},
): JqRecipe[] {
  return memoryRecipes(detail).map((spec) => ({
    description: spec.description,
    command: renderRecipeCommand(spec, filePath, params),
  }));
}

/** Inputs of {@link buildMemoryDescriptor}. */
export interface MemoryDescriptorInput {
  filePath: string;
  operation: string;
  detail: DetailLevel;
  count: number;
  estimatedTokens: number;
  stats: RecordStats;
  /** Scores of the hits, when the operation has scores. */
  scores?: readonly number[] | undefined;
  /** Guidance points to `lro_extract` instead of the shell. */
  nativeExtraction?: string | false;
}

/** The specification's `OffloadResponse`, every field, in the specification's order. */
export function buildMemoryDescriptor(input: MemoryDescriptorInput): OffloadResponse {
  const summary: OffloadSummary = {
    count: input.count,
    estimated_tokens: input.estimatedTokens,
    operation: input.operation,
    top_namespaces: input.stats.namespaces.slice(0, 5),
    score_range: scoreRange(input.scores),
    detail: input.detail,
  };
  const params = recipeParamsFromStats(input.stats);
  const g = { detail: input.detail };
  return {
    offloaded: true,
    summary,
    file_path: input.filePath,
    line_schema: memoryLineSchema(input.detail, input.stats.fields),
    jq_recipes: renderMemoryRecipes(input.detail, input.filePath, params),
    guidance: input.nativeExtraction ? nativeGuidance(g, input.nativeExtraction) : shellGuidance(g),
  };
}
