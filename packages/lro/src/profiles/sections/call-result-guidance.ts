/** The guidance of a call result's sections descriptor: the extraction tool first (when mounted), jq for shells. */

/** Guidance of a sections descriptor of `operation`'s result. */
export function callResultGuidance(
  /** `F=<path>` when the recipes read `"$F"`. */
  fileLine: string | undefined,
  operation: string,
  files: Record<string, string>,
  tokens: number,
  extractTool: string | undefined,
  binaries: readonly string[],
): string {
  const entries = Object.entries(files);
  const [firstKey] = entries[0] ?? [""];
  const example =
    firstKey === "text"
      ? `query="select(.text | test(\\"error\\"; \\"i\\")) | .text"`
      : firstKey === "records"
        ? 'query="keys", limit=1'
        : 'query=".", limit=10';
  const binary = binaries.length > 0 ? ` Binary content is in ${binaries.join(", ")}.` : "";
  const head = `${fileLine ? `${fileLine}\n` : ""}${operation}'s result (~${tokens} tokens) as JSONL in files, line 1 of each a header.${binary}`;
  return extractTool
    ? `${head} Query with \`${extractTool}\`(file_path=files.${firstKey}, ${example}), or in a shell set F and run a jq recipe (replace PATTERN).`
    : `${head} In a shell, set F and run a jq recipe (replace PATTERN), or your own jq.`;
}
