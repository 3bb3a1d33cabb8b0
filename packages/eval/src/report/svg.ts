/**
 * Grouped bar charts as hand-written SVG. No charting library: the ones that
 * render SVG on a server either need a DOM (d3 + jsdom) or a large runtime
 * (vega); one chart type with error bars is ~100 lines of plain markup.
 */

interface Series {
  name: string;
  values: (number | null)[];
  /** Optional interval per value (same units), drawn as whiskers. */
  ci?: ([number, number] | null)[];
}

export interface BarChart {
  title: string;
  groups: string[];
  series: Series[];
  yMax: number;
  yLabel: string;
  format: (v: number) => string;
}

const COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948"];

export const escapeXml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export function renderBarChart(c: BarChart): string {
  const bar = 18;
  const gap = 40;
  const left = 64;
  const top = 48;
  const plotH = 220;
  const groupW = c.series.length * bar + gap;
  const width = Math.max(420, left + c.groups.length * groupW + 20);
  const height = top + plotH + 70;
  const yMax = c.yMax > 0 ? c.yMax : 1;
  const y = (v: number) => Math.round((top + plotH - (Math.min(v, yMax) / yMax) * plotH) * 10) / 10;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
    `<title>${escapeXml(c.title)}</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${left}" y="18" font-size="13" font-weight="600">${escapeXml(c.title)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = (yMax * i) / 4;
    out.push(
      `<line x1="${left}" x2="${width - 10}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${escapeXml(c.format(v))}</text>`,
    );
  }
  out.push(
    `<text transform="translate(14 ${top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(c.yLabel)}</text>`,
  );
  c.groups.forEach((g, gi) => {
    const x0 = left + 10 + gi * groupW;
    c.series.forEach((s, si) => {
      const v = s.values[gi];
      if (v === null || v === undefined) return;
      const x = x0 + si * bar;
      const h = Math.max(0.5, top + plotH - y(v));
      out.push(
        `<rect x="${x}" y="${top + plotH - h}" width="${bar - 2}" height="${h}" fill="${COLORS[si % COLORS.length]}"><title>${escapeXml(`${g}, ${s.name}: ${c.format(v)}`)}</title></rect>`,
      );
      const ci = s.ci?.[gi];
      if (ci) {
        const cx = x + (bar - 2) / 2;
        out.push(
          `<path d="M${cx} ${y(ci[0])}V${y(ci[1])}M${cx - 3} ${y(ci[0])}h6M${cx - 3} ${y(ci[1])}h6" stroke="#333" fill="none"/>`,
        );
      }
    });
    out.push(
      `<text x="${x0 + (c.series.length * bar) / 2}" y="${top + plotH + 16}" text-anchor="middle">${escapeXml(g)}</text>`,
    );
  });
  c.series.forEach((s, si) => {
    const lx = left + si * 110;
    const ly = top + plotH + 40;
    out.push(
      `<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${COLORS[si % COLORS.length]}"/>`,
      `<text x="${lx + 14}" y="${ly}">${escapeXml(s.name)}</text>`,
    );
  });
  out.push("</svg>");
  return out.join("\n");
}
