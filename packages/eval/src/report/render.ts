/** Tables to Markdown and to HTML; the HTML report is one self-contained file (inline CSS and SVG). */
import { escapeXml } from "./svg.js";
import type { Table } from "./tables.js";

const mdCell = (s: string) => s.replace(/\|/g, "\\|");

export function tableMarkdown(t: Table): string {
  const lines = [`**${t.title}**`, ""];
  const row = (cells: string[]) => `| ${cells.map(mdCell).join(" | ")} |`;
  lines.push(row(t.header), row(t.header.map(() => "---")));
  if (t.subheader) lines.push(row(t.subheader));
  for (const r of t.rows) lines.push(row(r));
  if (t.note) lines.push("", `_${t.note}_`);
  return lines.join("\n");
}

function tableHtml(t: Table): string {
  const cells = (tag: string, cs: string[]) =>
    cs.map((c) => `<${tag}>${escapeXml(c)}</${tag}>`).join("");
  return [
    `<table id="${t.id}"><caption>${escapeXml(t.title)}</caption>`,
    `<thead><tr>${cells("th", t.header)}</tr>${t.subheader ? `<tr>${cells("th", t.subheader)}</tr>` : ""}</thead>`,
    `<tbody>${t.rows.map((r) => `<tr>${cells("td", r)}</tr>`).join("")}</tbody></table>`,
    t.note ? `<p class="note">${escapeXml(t.note)}</p>` : "",
  ].join("\n");
}

const CSS = `body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1.5em 0 .3em;font-size:13px}caption{text-align:left;font-weight:600;padding-bottom:.4em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
.note{font-size:12px;color:#555;margin:0 0 1em}.banner{background:#fff3cd;border:1px solid #e0c36a;padding:.6em 1em}
figure{margin:1em 0}`;

export function reportHtml(
  title: string,
  preamble: string[],
  tables: Table[],
  charts: { name: string; svg: string }[],
): string {
  return [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(title)}</title><style>${CSS}</style></head><body>`,
    `<h1>${escapeXml(title)}</h1>`,
    ...preamble.map(
      (p) => `<p${p.startsWith("HARNESS TEST") ? ' class="banner"' : ""}>${escapeXml(p)}</p>`,
    ),
    ...tables.map(tableHtml),
    "<h2>Charts</h2>",
    ...charts.map((c) => `<figure>${c.svg}</figure>`),
    "</body></html>",
  ].join("\n");
}
