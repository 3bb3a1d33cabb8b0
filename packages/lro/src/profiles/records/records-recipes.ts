/**
 * Recipes of the records profile, built from the fields the records actually
 * have: list the label field, filter and count by a low-cardinality field,
 * search the label, numeric summary, sort by a date or number field, first
 * ten, count, field census, a compact projection. Only recipes whose fields
 * exist are made, numbered in that order, the first {@link MAX_RECORDS_RECIPES}. The choice depends only
 * on the statistics, so the descriptor and `lro_extract` (which recomputes them
 * from the file) agree on every number.
 */
import type { RecipeSpec } from "../../recipes/recipe-spec.js";
import { type FieldStats, only, type RecordsStats, rankedValues } from "./field-stats.js";

/** Preferred names of a record's label, in order. */
const LABEL_NAMES = ["title", "name", "label", "subject", "summary", "path", "message", "text"];
/** Preferred names of a record's identifier. */
const ID_NAMES = ["id", "_id", "uuid", "key", "slug"];
/**
 * Recipes a records descriptor lists: the few that fit the data, in the order
 * above (each costs ~65 o200k tokens with its path; the descriptor's budget is 500).
 */
const MAX_RECORDS_RECIPES = 4;
/** A low-cardinality field has at most this many distinct values. */
const MAX_GROUPS = 20;

const JQ_KEYWORDS = new Set([
  "and",
  "or",
  "not",
  "if",
  "then",
  "elif",
  "else",
  "end",
  "as",
  "def",
  "reduce",
  "foreach",
  "try",
  "catch",
  "label",
  "import",
  "include",
  "__loc__",
]);

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `.name`, or `.["name"]` when the name is not a plain jq identifier. */
export function jqPath(name: string): string {
  return IDENT.test(name) && !JQ_KEYWORDS.has(name) ? `.${name}` : `.[${JSON.stringify(name)}]`;
}

/** An object key for jq object construction. */
function jqKey(name: string): string {
  return IDENT.test(name) && !JQ_KEYWORDS.has(name) ? name : JSON.stringify(name);
}

/** The fields recipes are built on (undefined where the records have none). */
interface RecipeFields {
  id: FieldStats | undefined;
  label: FieldStats | undefined;
  group: FieldStats | undefined;
  date: FieldStats | undefined;
  number: FieldStats | undefined;
  scalars: FieldStats[];
}

const isText = (f: FieldStats) => only(f, "string", "null") && f.types.has("string");
const isNumber = (f: FieldStats) =>
  only(f, "integer", "number", "null") && (f.types.has("integer") || f.types.has("number"));

/** Pick the fields the recipes use. */
export function recipeFields(stats: RecordsStats): RecipeFields {
  const fields = stats.fields;
  const byName = (names: string[], ok: (f: FieldStats) => boolean) => {
    for (const n of names) {
      const f = fields.find((x) => x.name.toLowerCase() === n && ok(x));
      if (f) return f;
    }
    return undefined;
  };
  const id = byName(ID_NAMES, (f) => isText(f) || only(f, "integer", "null"));
  const groupOk = (f: FieldStats) => {
    const n = f.values?.size ?? 0;
    return isText(f) && !f.dateLike && n >= 1 && n <= MAX_GROUPS && n < stats.count;
  };
  const groups = fields.filter(groupOk);
  const group = groups.find((f) => (f.values?.size ?? 0) >= 2) ?? groups[0];
  const label =
    byName(LABEL_NAMES, isText) ??
    fields.find((f) => isText(f) && !f.dateLike && f !== group && f !== id) ??
    (id && isText(id) ? id : undefined);
  const date = fields.find((f) => isText(f) && f.dateLike);
  const number = fields.find((f) => isNumber(f) && f !== id);
  const scalars = fields.filter(
    (f) => only(f, "string", "integer", "number", "boolean", "null") && f.present > 0,
  );
  return { id, label, group, date, number, scalars };
}

/** Parameter values for the shell commands, drawn from the data so they return something. */
export function recordsRecipeParams(f: RecipeFields): Record<string, string> {
  const params: Record<string, string> = {};
  const top = f.group ? rankedValues(f.group)[0] : undefined;
  if (top !== undefined) params.value = top;
  // A word of a real value (regex-safe), so the shell search finds something.
  const word = f.label?.firstString?.match(/[\p{L}\p{N}_-]{2,}/u)?.[0];
  if (word !== undefined) params.keyword = word;
  return params;
}

type Draft = Omit<RecipeSpec, "number">;

/** The recipes for records with these statistics, numbered from 1. */
export function recordsRecipes(stats: RecordsStats): RecipeSpec[] {
  const f = recipeFields(stats);
  const params = recordsRecipeParams(f);
  const drafts: Draft[] = [];
  const plain = { slurp: false, raw: false, params: [] as string[] };
  const slurped = { slurp: true, raw: false, params: [] as string[] };

  if (f.label) {
    const showId = f.id && f.id !== f.label;
    drafts.push({
      ...plain,
      description: showId
        ? `List ${f.id?.name} and ${f.label.name}`
        : `List ${f.label.name} values`,
      filter: showId
        ? `[${jqPath((f.id as FieldStats).name)}, ${jqPath(f.label.name)}] | @tsv`
        : `${jqPath(f.label.name)} // empty`,
      raw: true,
    });
  }
  if (f.group) {
    const g = f.group.name;
    drafts.push({
      ...plain,
      description: `Filter by ${g}`,
      filter: `select(${jqPath(g)} == $value)`,
      params: ["value"],
      examples: { value: params.value ?? "value" },
    });
    drafts.push({
      ...slurped,
      description: `Count by ${g}`,
      filter: `group_by(${jqPath(g)}) | map({${jqKey(g)}: .[0]${jqPath(g)}, count: length})`,
    });
  }
  if (f.label) {
    drafts.push({
      ...plain,
      description: `Search ${f.label.name} by keyword`,
      filter: `select(${jqPath(f.label.name)} // "" | test($keyword; "i"))`,
      params: ["keyword"],
      examples: { keyword: params.keyword ?? "keyword" },
    });
  }
  if (f.number) {
    const p = jqPath(f.number.name);
    drafts.push({
      ...slurped,
      description: `Count, min, max and sum of ${f.number.name}`,
      filter: `map(${p} | numbers) | {count: length, min: min, max: max, sum: add}`,
    });
  }
  if (f.date) {
    drafts.push({
      ...slurped,
      description: `Sort by ${f.date.name} (oldest first)`,
      filter: `sort_by(${jqPath(f.date.name)})`,
    });
  } else if (f.number) {
    drafts.push({
      ...slurped,
      description: `Sort by ${f.number.name} (largest first)`,
      filter: `sort_by(${jqPath(f.number.name)}) | reverse`,
    });
  }
  drafts.push({ ...slurped, description: "First 10 records", filter: ".[:10][]" });
  drafts.push({ ...slurped, description: "Count records", filter: "length" });
  if (stats.nonObjects === 0) {
    drafts.push({
      ...slurped,
      description: "Field names and counts",
      filter: "map(keys[]) | group_by(.) | map({field: .[0], count: length})",
    });
  }
  const projected = f.scalars.slice(0, 4);
  if (projected.length > 0 && projected.length < stats.fields.length) {
    drafts.push({
      ...plain,
      description: `Only ${projected.map((x) => x.name).join(", ")}`,
      filter: `{${projected.map((x) => (jqKey(x.name) === x.name ? x.name : `${jqKey(x.name)}: ${jqPath(x.name)}`)).join(", ")}}`,
    });
  }
  return drafts.slice(0, MAX_RECORDS_RECIPES).map((d, i) => ({ number: i + 1, ...d }));
}
