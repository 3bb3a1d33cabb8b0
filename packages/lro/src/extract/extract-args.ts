/**
 * Validation of `lro_extract` arguments into one normalized request. Every
 * problem is an `LroError` `INVALID_ARGUMENT` whose message says what to send
 * instead: a model reads it and retries.
 */
import { LroError } from "../errors.js";
import type { RecipeSpec } from "../recipes/recipe-spec.js";
import type { JsonValue } from "./jq-engine.js";

/** Raw arguments of `lro_extract` (the tool's parameters). */
export interface ExtractArgs {
  /** Path of the offload file, as the descriptor's `file_path` gave it. */
  file_path: string;
  /** A standard recipe, 1 to 10 (exclusive with `query`). */
  recipe?: number | null | undefined;
  /** A jq filter (exclusive with `recipe`). */
  query?: string | null | undefined;
  /** Values of the recipe's or query's jq variables (`$namespace`, ...). */
  params?: Record<string, JsonValue> | null | undefined;
  /** Custom queries only: the filter sees one array of every record (`jq -s`). */
  slurp?: boolean | null | undefined;
  /** Custom queries only: print strings raw (`jq -r`). */
  raw?: boolean | null | undefined;
  /** At most this many output values are returned. */
  limit?: number | null | undefined;
}

/** A validated request. */
export type ExtractRequest =
  | {
      kind: "recipe";
      filePath: string;
      recipe: number;
      params: Record<string, string>;
      limit: number | undefined;
    }
  | {
      kind: "query";
      filePath: string;
      query: string;
      params: Record<string, JsonValue>;
      slurp: boolean;
      raw: boolean;
      limit: number | undefined;
    };

/** Longest custom filter accepted. */
const MAX_QUERY_LENGTH = 16 * 1024;

const bad = (message: string) => new LroError("INVALID_ARGUMENT", message);

/** Which parameter names a recipe takes, as the model should send them. */
export function describeRecipeParams(spec: Pick<RecipeSpec, "params" | "examples">): string {
  const examples = (spec.examples ?? {}) as Readonly<Record<string, string | undefined>>;
  return spec.params.length === 0
    ? "no params"
    : `params ${spec.params.map((n) => `{"${n}": ${JSON.stringify(examples[n] ?? "...")}}`).join(" ")}`;
}

/**
 * The recipe's parameters must be exactly the ones its filter uses (which, for
 * recipe 10, depends on the file's detail level): an unexpected name would be
 * silently ignored by jq, a missing one is a jq compile error.
 */
export function checkRecipeParams(
  spec: Pick<RecipeSpec, "number" | "params" | "examples">,
  params: Readonly<Record<string, string>>,
  detail: string,
): LroError | undefined {
  const names = spec.params as readonly string[];
  for (const k of Object.keys(params)) {
    if (!names.includes(k)) {
      return bad(
        `recipe ${spec.number} at ${detail} detail takes ${describeRecipeParams(spec)}; unexpected param ${JSON.stringify(k)}`,
      );
    }
  }
  for (const n of spec.params) {
    if (params[n] === undefined) {
      return bad(
        `recipe ${spec.number} at ${detail} detail needs ${describeRecipeParams(spec)}; params.${n} is missing`,
      );
    }
  }
  return undefined;
}

/**
 * The standard recipes' numbers (the specification's ten). Clients that drop a
 * schema's `minimum`/`maximum` (Codex) see this range only in the descriptions,
 * so every description and message spells it from here.
 */
export const RECIPE_NUMBERS = { first: 1, last: 10 } as const;
const RANGE = `${RECIPE_NUMBERS.first}-${RECIPE_NUMBERS.last}`;

/** Normalize `args`, or return the error to show. */
export function validateExtractArgs(args: ExtractArgs): ExtractRequest | LroError {
  const hasRecipe = args.recipe !== undefined && args.recipe !== null;
  const hasQuery = args.query !== undefined && args.query !== null;
  if (hasRecipe === hasQuery) {
    return bad(
      hasRecipe
        ? `pass either recipe or query, not both: recipe runs a numbered recipe of the descriptor (${RANGE}), query runs your own jq filter`
        : `pass one of recipe (a recipe number from the descriptor, ${RANGE}) or query (a jq filter, e.g. "select(.status == $s)" with params {"s": "..."})`,
    );
  }
  let limit: number | undefined;
  if (args.limit !== undefined && args.limit !== null) {
    if (!Number.isInteger(args.limit) || args.limit < 1) {
      return bad(`limit must be a positive integer (got ${JSON.stringify(args.limit)})`);
    }
    limit = args.limit;
  }
  const params = args.params ?? {};
  if (typeof params !== "object" || Array.isArray(params)) {
    return bad('params must be an object of named values, e.g. {"s": "open"}');
  }

  if (hasRecipe) {
    const recipe = args.recipe as number;
    if (!Number.isInteger(recipe) || recipe < 1 || recipe > 10) {
      return bad(`recipe must be an integer from 1 to 10 (got ${JSON.stringify(recipe)})`);
    }
    if (args.slurp !== undefined && args.slurp !== null) {
      return bad(
        "slurp applies to custom queries only; each recipe already knows whether it reads all records at once",
      );
    }
    if (args.raw !== undefined && args.raw !== null) {
      return bad("raw applies to custom queries only; recipe 1 already prints raw text");
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) {
      if (typeof v !== "string") {
        return bad(`params.${k} must be a string (recipes receive their values like jq --arg)`);
      }
      out[k] = v;
    }
    return { kind: "recipe", filePath: args.file_path, recipe, params: out, limit };
  }

  const query = args.query as string;
  if (typeof query !== "string" || query.trim() === "") {
    return bad('query must be a non-empty jq filter, e.g. "select(.size > 100)"');
  }
  if (query.length > MAX_QUERY_LENGTH) {
    return bad(`query is longer than ${MAX_QUERY_LENGTH} characters; write a shorter filter`);
  }
  return {
    kind: "query",
    filePath: args.file_path,
    query,
    params: params as Record<string, JsonValue>,
    slurp: args.slurp === true,
    raw: args.raw === true,
    limit,
  };
}
