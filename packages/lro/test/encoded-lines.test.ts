/**
 * Text line records encoded straight into UTF-8 (the sections profile's text
 * lines for large results) are byte for byte what serializing each record
 * would give, and read back to the text.
 */
import { describe, expect, it } from "vitest";
import { EncodedLines, encodeTextLines } from "../src/materialize/encoded-lines.js";

function expected(block: number, text: string): string {
  return text
    .split("\n")
    .map((t, i) => `${JSON.stringify({ block, line: i + 1, text: t })}\n`)
    .join("");
}

describe("encodeTextLines", () => {
  const texts = {
    plain: Array.from({ length: 12_345 }, (_, i) => `line ${i} of a log`).join("\n"),
    trailingNewline: "a\nb\n",
    empty: "",
    blankLines: "\n\n\nx\n\n",
    unicode: "naïve café ✓ 日本語\n𝄞 emoji 🎉\nend",
    escapes: 'say "hi"\ttab\\back\u0001ctl\nplain line\nlone \ud800 surrogate',
  };
  for (const [name, text] of Object.entries(texts)) {
    it(`gives JSON.stringify's bytes for ${name} text`, () => {
      const out = new EncodedLines();
      const n = encodeTextLines(out, 3, text);
      expect(n).toBe(text.split("\n").length);
      expect(out.count).toBe(n);
      const bytes = Buffer.concat(out.finish());
      expect(bytes.toString("utf8")).toBe(expected(3, text));
      expect(out.bytes).toBe(bytes.length);
      const back = out
        .toLines()
        .map((l) => (JSON.parse(l) as { text: string }).text)
        .join("\n");
      expect(back).toBe(text);
    });
  }

  it("spans chunks and mixes whole lines with text lines", () => {
    const out = new EncodedLines();
    const big = "x".repeat(3000).concat("\n").repeat(1000);
    out.line(JSON.stringify({ block: 0, json: "structuredContent", indent: 2 }));
    encodeTextLines(out, 1, big);
    expect(out.finish().length).toBeGreaterThan(1);
    const lines = out.toLines();
    expect(lines).toHaveLength(1 + 1001);
    expect(JSON.parse(lines[0] as string)).toEqual({
      block: 0,
      json: "structuredContent",
      indent: 2,
    });
    expect(lines.slice(1).join("\n")).toBe(expected(1, big).trimEnd());
  });
});
