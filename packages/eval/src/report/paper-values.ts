/**
 * The paper's own Tables 3-11 (Claude Haiku 4.5 and GPT-5-mini, 15 tasks per
 * cell), transcribed, so the report shows them beside the measured ones.
 */
import type { Table } from "./tables.js";

const SCALES = ["n=50", "", "n=200", "", "n=500", ""];
const MODELS = ["", "Haiku", "GPT-5-mini", "Haiku", "GPT-5-mini", "Haiku", "GPT-5-mini"];

function grid(id: string, title: string, first: string, rows: (string | number)[][]): Table {
  return {
    id: `paper-${id}`,
    title: `Paper, ${title}`,
    header: [first, ...SCALES],
    subheader: MODELS,
    rows: rows.map((r) => r.map(String)),
  };
}

export const PAPER_TABLES: readonly Table[] = [
  grid("table-3", "Table 3. E1 count accuracy (%).", "Strategy", [
    ["LRO", "93.3", "73.3", "93.3", "86.7", "86.7", "73.3"],
    ["Inline", "0.0", "0.0", "0.0", "6.7", "0.0", "0.0"],
    ["Inline+Code", "0.0", "0.0", "0.0", "0.0", "0.0", "0.0"],
    ["Summary", "46.7", "100.0", "33.3", "33.3", "13.3", "40.0"],
    ["Truncation", "40.0", "80.0", "26.7", "80.0", "6.7", "100.0"],
  ]),
  grid("table-4", "Table 4. E1 API tokens (thousands).", "Strategy", [
    ["LRO", 188, 350, 171, 197, 147, 269],
    ["Inline", 147, "1,105", 301, 474, 390, 659],
    ["Inline+Code", 198, "1,717", 289, 512, 415, 724],
    ["Summary", 83, 67, 206, 233, 315, 474],
    ["Truncation", 662, 507, 245, 150, 233, 158],
  ]),
  {
    id: "paper-table-5",
    title: "Paper, Table 5. E1 LRO/Inline token ratio by scale.",
    header: ["Scale", "Haiku", "GPT-5-mini", "Haiku savings", "GPT-5-mini savings"],
    rows: [
      ["n=50", "1.28x", "0.32x", "-28% overhead", "68%"],
      ["n=200", "0.57x", "0.42x", "43%", "58%"],
      ["n=500", "0.38x", "0.41x", "62%", "59%"],
    ],
  },
  grid("table-6", "Table 6. E2 count accuracy (%).", "Condition", [
    ["C1 Full LRO", "86.7", "73.3", "93.3", "86.7", "100.0", "66.7"],
    ["C2 No Recipes", "100.0", "80.0", "100.0", "100.0", "93.3", "86.7"],
    ["C3 No Schema", "86.7", "66.7", "100.0", "73.3", "100.0", "86.7"],
    ["C4 Bare Pointer", "100.0", "80.0", "100.0", "100.0", "100.0", "93.3"],
    ["C5 Inline", "0.0", "0.0", "0.0", "6.7", "0.0", "0.0"],
  ]),
  {
    id: "paper-table-7",
    title: "Paper, Table 7. E2 mean count accuracy across all scales and models.",
    header: ["Condition", "Mean Accuracy"],
    rows: [
      ["C4 Bare Pointer", "95.6%"],
      ["C2 No Recipes", "93.3%"],
      ["C3 No Schema", "85.6%"],
      ["C1 Full LRO", "84.4%"],
      ["C5 Inline", "1.1%"],
    ],
  },
  grid("table-8", "Table 8. E3 count accuracy (%).", "Condition", [
    ["Recipe", "93.3", "73.3", "86.7", "100.0", "73.3", "93.3"],
    ["NoRecipe", "93.3", "86.7", "86.7", "93.3", "100.0", "86.7"],
  ]),
  grid("table-9", "Table 9. E3 goal achievement (%).", "Condition", [
    ["Recipe", "100.0", "73.3", "100.0", "66.7", "100.0", "66.7"],
    ["NoRecipe", "98.3", "53.3", "100.0", "53.3", "100.0", "46.7"],
  ]),
  grid("table-10", "Table 10. E3 pattern alignment score (0-1).", "Condition", [
    ["Recipe", "0.783", "0.683", "0.800", "0.667", "0.824", "0.578"],
    ["NoRecipe", "0.758", "0.500", "0.633", "0.456", "0.750", "0.417"],
  ]),
  {
    id: "paper-table-11",
    title: "Paper, Table 11. E4 count accuracy (%) across all scales and models.",
    header: ["Condition", "Mean Accuracy", "Content Tokens", "LLM Cost (tokens)"],
    rows: [
      ["C1 Full LRO", "12.9%", "38,497", "321,597"],
      ["C2 No Recipes", "12.9%", "35,409", "291,537"],
      ["C3 No Schema", "12.9%", "41,819", "345,560"],
      ["C4 Bare Pointer", "12.9%", "42,354", "341,761"],
      ["C5 Full Inline", "0.0%", "70,548", "661,071"],
    ],
  },
];
