/** Every built-in profile passes the one Profile contract (`profile.contract.ts`). */
import { expect, it } from "vitest";
import {
  BUILTIN_PROFILES,
  DETAIL_LEVELS,
  memoryProfile,
  recordsProfile,
  sectionsProfile,
} from "../../src/index.js";
import { makeMemories } from "../fixtures/memory-records.js";
import { type ProfileCase, profileContract } from "./profile.contract.js";

const cases: Record<string, () => ProfileCase> = {
  memory: () => ({
    profile: memoryProfile,
    records: makeMemories(60),
    details: DETAIL_LEVELS,
  }),
  records: () => ({
    profile: recordsProfile,
    records: Array.from({ length: 60 }, (_, i) => ({
      id: `ord-${i}`,
      customer: i % 3 ? "acme" : "globex",
      status: ["shipped", "pending", "cancelled"][i % 3],
      total: (i * 37) % 500,
      created: new Date(Date.UTC(2025, 0, 1 + i)).toISOString(),
      items: Array.from({ length: i % 4 }, (_, n) => ({ sku: `sku-${n}` })),
    })),
    details: [undefined],
  }),
  sections: () => ({
    profile: sectionsProfile,
    records: Array.from({ length: 60 }, (_, i) =>
      i % 2 ? { line: i, text: `log line ${i}` } : { line: i, text: `warning ${i}`, level: "warn" },
    ),
    details: [undefined],
  }),
};

it("covers every built-in profile", () => {
  expect(BUILTIN_PROFILES.map((p) => p.name).sort()).toEqual(Object.keys(cases).sort());
});

for (const [name, make] of Object.entries(cases)) profileContract(name, make);
