import { estimateLatinTokens, estimateTokens } from "@atlatl/lro";
import { describe, expect, it } from "vitest";
import { ContextService } from "../../src/services/context-service.js";
import { makeMemory } from "../store/fixtures.js";
import { useServices } from "./helpers.js";

const context = new ContextService();

function hits(count: number, contentChars: number) {
  return Array.from({ length: count }, (_, i) => ({
    memory: makeMemory({
      title: `Memory number ${i}`,
      content: `${"Lorem ipsum dolor sit amet. ".repeat(Math.ceil(contentChars / 28))}`.slice(
        0,
        contentChars,
      ),
      confidence: i % 2 ? 0.75 : null,
    }),
    score: 1 - i / 100,
  }));
}

describe("ContextService.format", () => {
  it("formats each memory with title, namespace, type, confidence and content", async () => {
    const [h] = hits(1, 100);
    if (!h) throw new Error("no hit");
    const { context: text, included } = await context.format([
      { ...h, memory: { ...h.memory, provenance: { ...h.memory.provenance, confidence: 0.8 } } },
    ]);
    expect(included).toBe(1);
    expect(text.startsWith("# Relevant memories\n")).toBe(true);
    expect(text).toContain(`## ${h.memory.title}\n`);
    expect(text).toContain("namespace: `_semantic/general`");
    expect(text).toContain("type: semantic");
    expect(text).toContain("confidence: 0.80");
    expect(text).toContain(h.memory.content);
    expect(text).toContain(h.memory.id);
  });

  it("stays within every budget and keeps the ranking order", async () => {
    const many = hits(40, 900);
    for (const budget of [1, 10, 40, 100, 250, 600, 2000, 5000, 20_000]) {
      const { context: text, included } = await context.format(many, budget);
      expect(estimateLatinTokens(text), `budget ${budget}`).toBeLessThanOrEqual(budget);
      const titles = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
      expect(titles).toEqual(many.slice(0, included).map((h) => h.memory.title));
    }
    expect((await context.format(many, 20_000)).included).toBe(40);
  });

  it("cuts the first memory that does not fit and says how many were left out", async () => {
    const many = hits(10, 2000);
    const { context: text, included } = await context.format(many, 1200);
    expect(included).toBe(3);
    expect(text).toMatch(/ …\n/);
    expect(text).toMatch(/_7 more memories left out to fit the budget._\n$/);
  });

  it("uses the default budget of 2000 tokens", async () => {
    const { context: text } = await context.format(hits(50, 1000));
    expect(estimateLatinTokens(text)).toBeLessThanOrEqual(2000);
    expect(estimateLatinTokens(text)).toBeGreaterThan(1800);
  });

  it("says so when nothing was recalled, and accepts plain memories", async () => {
    expect(await context.format([])).toEqual({
      context: "# Relevant memories\n\nNo matching memories.\n",
      included: 0,
    });
    const m = makeMemory({ content: "just this" });
    expect((await context.format([m])).included).toBe(1);
  });

  it("honours a custom token estimate", async () => {
    const strict = new ContextService({ estimateTokens: (t) => t.length });
    const { context: text } = await strict.format(hits(5, 500), 800);
    expect(text.length).toBeLessThanOrEqual(800);
  });

  it("refuses a budget that is not a positive integer", async () => {
    for (const budget of [0, -5, 1.5, Number.NaN]) {
      await expect(context.format([], budget)).rejects.toThrow(/budget_tokens/);
    }
  });
});

describe("inject_context's budget (createServices)", () => {
  const ctx = useServices();

  it("counts CJK text with LRO's estimator: the block fits the budget in real tokens", async () => {
    const cjk = Array.from({ length: 10 }, (_, i) => ({
      memory: makeMemory({
        title: `決定 ${i}`,
        content: "データベースの移行はリリースの前に完了させること。".repeat(40),
      }),
    }));
    for (const budget of [200, 600, 2000]) {
      const { context: text, included } = await ctx.services.context.format(cjk, budget);
      expect(included, `budget ${budget}`).toBeGreaterThan(0);
      expect(await estimateTokens(text), `budget ${budget}`).toBeLessThanOrEqual(budget);
    }
  });
});
