/**
 * jq recipes for the sections of an offloaded CallToolResult, built from what the data has: record
 * recipes name only fields present in the records (plain identifiers, so they
 * stay valid inside single quotes), text recipes read line records. `{key_file}`
 * placeholders are filled with the shell-quoted path by the descriptor builder;
 * `PATTERN` and the numbers are values the caller edits.
 */

/** Fields used as recipe examples, at most this many of each kind. */
const MAX_FIELDS = 3;
/** Recipes a section lists (each ~60 o200k tokens with its path; the descriptor's budget is 500). */
const MAX_RECIPES = 4;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Kind = "string" | "number";

/** Top-level fields by how many records carry them as strings or numbers. */
function fieldStats(records: readonly Record<string, unknown>[]): Map<string, Map<Kind, number>> {
  const stats = new Map<string, Map<Kind, number>>();
  // A sample is enough to pick example fields; the schema itself sees every record.
  const sample = records.length > 2000 ? records.slice(0, 2000) : records;
  for (const r of sample) {
    for (const [k, v] of Object.entries(r)) {
      if (!IDENT.test(k)) continue;
      const kind: Kind | undefined =
        typeof v === "string" ? "string" : typeof v === "number" ? "number" : undefined;
      if (!kind) continue;
      let m = stats.get(k);
      if (!m) {
        m = new Map();
        stats.set(k, m);
      }
      m.set(kind, (m.get(kind) ?? 0) + 1);
    }
  }
  return stats;
}

function topFields(stats: Map<string, Map<Kind, number>>, kind: Kind, n: number): string[] {
  return [...stats.entries()]
    .map(([k, m]) => [k, m.get(kind) ?? 0] as const)
    .filter(([, c]) => c > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k]) => k);
}

/** Recipes of a `records` section, for the fields these records actually have. */
export function recordRecipes(records: readonly Record<string, unknown>[]): Record<string, string> {
  const f = "{records_file}";
  const stats = fieldStats(records);
  const strings = topFields(stats, "string", MAX_FIELDS);
  // Ranking by an identifier says nothing: top-N recipes use a measure.
  const numbers = topFields(stats, "number", 4)
    .filter((k) => !/^id$|_id$|Id$/.test(k))
    .slice(0, 1);
  const recipes: Record<string, string> = {};
  const shown = [...strings, ...numbers].slice(0, MAX_FIELDS);
  if (shown.length > 0) {
    recipes.list_records = `tail -n +2 ${f} | jq -c '{${shown.join(", ")}}'`;
  }
  // The last string field is the likeliest to group (a name first, a kind after).
  const group = strings.at(-1);
  if (group !== undefined) {
    recipes[`count_by_${group}`] =
      `tail -n +2 ${f} | jq -r '.${group} | tostring' | sort | uniq -c | sort -rn | head -20`;
  }
  const search = strings[0];
  if (search !== undefined) {
    recipes[`search_${search}`] =
      `tail -n +2 ${f} | jq -c --arg re 'PATTERN' 'select(.${search} != null and (.${search} | tostring | test($re; "i")))'`;
  }
  for (const n of numbers) {
    recipes[`top_10_by_${n}`] =
      `tail -n +2 ${f} | jq -s -c 'sort_by(.${n}) | reverse | .[:10] | .[]'`;
  }
  recipes.count_records = `tail -n +2 ${f} | jq -s 'length'`;
  // The few that fit: preferred in the order above.
  return Object.fromEntries(Object.entries(recipes).slice(0, MAX_RECIPES));
}

/** Recipes of the `text` section (line records). */
export function textRecipes(): Record<string, string> {
  const f = "{text_file}";
  return {
    read_text: `tail -n +2 ${f} | jq -r 'select(.line != null) | .text'`,
    text_lines_1_to_100: `tail -n +2 ${f} | jq -r --argjson from 1 --argjson to 100 'select(.line != null and .line >= $from and .line <= $to) | "\\(.line): \\(.text)"'`,
    grep_text: `tail -n +2 ${f} | jq -r --arg re 'PATTERN' 'select(.line != null and (.text | test($re; "i"))) | "\\(.block):\\(.line): \\(.text)"'`,
  };
}
