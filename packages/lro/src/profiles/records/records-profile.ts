/**
 * The records profile: any array of objects (orders, issues, rows, files),
 * written as they are, described by the specification's descriptor shape
 * (`summary`, `file_path`, `line_schema`, numbered `jq_recipes`, `guidance`)
 * with a schema inferred from every record and recipes built from the fields
 * actually present. Its headers say `"profile":"records"`.
 */

import { compactShape } from "../../descriptor/infer-schema.js";
import { LroError } from "../../errors.js";
import {
  type RecipeSpec,
  recipeFileAssignment,
  renderJqCommandOnVar,
} from "../../recipes/recipe-spec.js";
import type { CompactShape, JqRecipe } from "../../types.js";
import type { DescribeInput, Profile } from "../profile.js";
import { type RecordsStats, RecordsStatsAccumulator, rankedValues } from "./field-stats.js";
import { recipeFields, recordsRecipeParams, recordsRecipes } from "./records-recipes.js";

/** Name of the records profile (the header's `profile`). */
export const RECORDS_PROFILE = "records";

/** Header `schema_version` of records files. */
export const RECORDS_SCHEMA_VERSION = "records/1";

/** Summary of a records descriptor. */
export interface RecordsSummary {
  count: number;
  estimated_tokens: number;
  operation: string;
  /** The most frequent values of the low-cardinality field the recipes group by. */
  top_values?: Record<string, string[]>;
  /** `[min, max]` of the numeric field the recipes sort or sum by. */
  range?: Record<string, [number, number]>;
  /** `[min, max]` of the hits' scores, when the operation has them. */
  score_range?: [number, number];
}

/**
 * The descriptor of an offloaded records result: the file, its shape (line
 * schema), a preview of the first record, the few recipes that fit these
 * fields, and two lines of guidance.
 */
export interface RecordsOffloadResponse {
  offloaded: true;
  summary: RecordsSummary;
  file_path: string;
  /** The records' fields and types, compact (`descriptor/infer-schema.ts`). */
  line_schema: CompactShape;
  /** The first record, long values shortened. */
  preview?: unknown;
  jq_recipes: JqRecipe[];
  guidance: string;
}

function summaryOf(input: DescribeInput<RecordsStats>): RecordsSummary {
  const f = recipeFields(input.stats);
  const summary: RecordsSummary = {
    count: input.count,
    estimated_tokens: input.estimatedTokens,
    operation: input.operation,
  };
  if (f.group) summary.top_values = { [f.group.name]: rankedValues(f.group).slice(0, 5) };
  if (f.number && Number.isFinite(f.number.min)) {
    summary.range = { [f.number.name]: [f.number.min, f.number.max] };
  }
  const scores = input.scores?.filter((s) => typeof s === "number" && Number.isFinite(s));
  if (scores && scores.length > 0) summary.score_range = [Math.min(...scores), Math.max(...scores)];
  return summary;
}

/**
 * Guidance of the records profile: what the file is and how to query it,
 * the path left to `file_path` (it is long: written once). No examples: the
 * recipes are just above, and `lro_extract` names a recipe's missing params.
 */
export function recordsGuidance(input: DescribeInput<RecordsStats>): string {
  const head = `${recipeFileAssignment(input.filePath)}\nJSONL, line 1 a header.`;
  const shell = "Shell: set F, run a recipe or your own jq.";
  if (!input.nativeExtraction) return `${head} ${shell}`;
  return `${head} ${shell} \`${input.nativeExtraction}\`: file_path, recipe=N (order above) or query.`;
}

/** Recipes derived from a file's parsed records (the extractor caches those per file version). */
const recipesOfFile = new WeakMap<readonly object[], RecipeSpec[]>();

/** The records profile. */
export const recordsProfile: Profile<RecordsOffloadResponse, RecordsStats> = {
  name: RECORDS_PROFILE,
  schemaVersion: RECORDS_SCHEMA_VERSION,
  normalizeDetail: () => "full",
  project: (record) => record,
  accumulate: () => new RecordsStatsAccumulator(),
  headerFields: () => ({ profile: RECORDS_PROFILE }),
  describe(input) {
    const specs = recordsRecipes(input.stats);
    const params = recordsRecipeParams(recipeFields(input.stats));
    return {
      offloaded: true,
      summary: summaryOf(input),
      file_path: input.filePath,
      line_schema: compactShape(input.stats.lineSchema),
      ...(input.stats.preview !== undefined ? { preview: input.stats.preview } : {}),
      jq_recipes: specs.map((s) => ({
        description: s.description,
        command: renderJqCommandOnVar(s, params),
      })),
      guidance: recordsGuidance(input),
    };
  },
  recipe(_header, number, records) {
    const parsed = records();
    let specs = recipesOfFile.get(parsed);
    if (!specs) {
      const acc = new RecordsStatsAccumulator();
      for (const r of parsed) acc.add(r);
      specs = recordsRecipes(acc.result());
      recipesOfFile.set(parsed, specs);
    }
    const spec = specs[number - 1];
    if (spec) return spec;
    return new LroError(
      "INVALID_ARGUMENT",
      `this records file has recipes 1 to ${specs.length} (got ${number}); see the descriptor's jq_recipes, or pass a jq query`,
    );
  },
};
