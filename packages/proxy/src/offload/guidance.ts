/** The guidance text of the proxy's sections descriptors: the extraction tool first, jq for shells. */

/** Guidance of a sections descriptor: the extraction tool first, jq recipes for shells. */
export function guidanceFor(
  tool: string,
  files: Record<string, string>,
  tokens: number,
  extractTool: string,
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
    `Result of ${tool} offloaded to JSONL (~${tokens} tokens; ${entries.length} section(s): ${entries.map(([k]) => k).join(", ")}).`,
    "Files:",
    ...entries.map(([k, p]) => `  - ${k}: ${p}`),
    ...(binaries.length > 0
      ? ["Binary content (not inlined):", ...binaries.map((b) => `  - ${b}`)]
      : []),
    "",
    `Use the \`${extractTool}\` tool to query a file, e.g. ${extractTool}(file_path="${firstPath}", ${example}),`,
    "or the jq_recipes above in a shell (replace PATTERN). Line 1 of each file is a header; data starts at line 2.",
  ].join("\n");
}
