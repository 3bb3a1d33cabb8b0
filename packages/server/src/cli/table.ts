/** Render rows as an aligned plain-text table for people (the CLI's default output). */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const clean = (s: string) => s.replace(/\s+/g, " ");
  const cells = rows.map((r) => r.map(clean));
  const widths = headers.map((h, i) =>
    Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)),
  );
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

/** Shorten `text` to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
