/** The guidance of a call result's sections descriptor: the extraction tool first (when mounted), jq for shells. */

/** Guidance of a sections descriptor of `operation`'s result. */
export function callResultGuidance(
  operation: string,
  files: Record<string, string>,
  tokens: number,
  extractTool: string | undefined,
  binaries: readonly string[],
): string {
  const entries = Object.entries(files);
  const [firstKey, firstPath] = entries[0] ?? ["", ""];
  const example =
    firstKey === "text"
      ? `query="select(.text | test(\\"error\\"; \\"i\\")) | .text"`
      : firstKey === "records"
        ? 'query="keys", limit=1'
        : 'query=".", limit=10';
  return [
    `Result of ${operation} offloaded to JSONL (~${tokens} tokens; ${entries.length} section(s): ${entries.map(([k]) => k).join(", ")}).`,
    "Files:",
    ...entries.map(([k, p]) => `  - ${k}: ${p}`),
    ...(binaries.length > 0
      ? ["Binary content (not inlined):", ...binaries.map((b) => `  - ${b}`)]
      : []),
    "",
    ...(extractTool
      ? [
          `Use the \`${extractTool}\` tool to query a file, e.g. ${extractTool}(file_path="${firstPath}", ${example}),`,
          "or the jq_recipes above in a shell (replace PATTERN). Line 1 of each file is a header; data starts at line 2.",
        ]
      : [
          "Use the jq_recipes above in a shell (replace PATTERN), or read the files directly.",
          "Line 1 of each file is a header; data starts at line 2.",
        ]),
  ].join("\n");
}
