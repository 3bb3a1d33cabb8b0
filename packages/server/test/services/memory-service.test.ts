import { describe, expect, it } from "vitest";
import { BACKENDS } from "../backends/backends.js";
import { failure, useServices } from "./helpers.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.each(BACKENDS)("MemoryService ($name)", (backend) => {
  const ctx = useServices(backend);

  it("captures with defaults: uuid, derived title, semantic type and namespace, timestamps", async () => {
    const m = await ctx.services.memories.capture({
      content: "# Prefer tabs\nTeam agreed on tabs.",
    });
    expect(m.id).toMatch(UUID);
    expect(m.title).toBe("Prefer tabs");
    expect(m.memory_type).toBe("semantic");
    expect(m.namespace).toBe("_semantic/general");
    expect(m.status).toBe("active");
    expect(m.created).toBe(ctx.clock.now().toISOString());
    expect(m.modified).toBe(m.created);
    expect(m.provenance.confidence).toBeNull();
    expect(await ctx.services.memories.get(m.id)).toEqual(m);
  });

  it("derives the namespace from the type and keeps given fields", async () => {
    const m = await ctx.services.memories.capture({
      content: "Deployed v2 on Friday.",
      memory_type: "episodic",
      tags: ["deploy", " deploy ", "release"],
      confidence: 0.8,
      title: undefined,
    });
    expect(m.namespace).toBe("_episodic/general");
    expect(m.tags).toEqual(["deploy", "release"]);
    expect(m.provenance.confidence).toBe(0.8);
    const p = await ctx.services.memories.capture({
      content: "x",
      title: "Run the migrations",
      memory_type: "procedural",
      namespace: "_procedural/runbooks",
    });
    expect(p.title).toBe("Run the migrations");
    expect(p.namespace).toBe("_procedural/runbooks");
  });

  it("refuses bad input with INVALID_ARGUMENT naming the field", async () => {
    const capture = (input: object) =>
      failure(ctx.services.memories.capture(input as { content: string }));
    expect(await capture({ content: "   " })).toMatchObject({
      code: "INVALID_ARGUMENT",
      field: "content",
    });
    expect(await capture({})).toMatchObject({ code: "INVALID_ARGUMENT", field: "content" });
    const ns = await capture({ content: "x", namespace: "bad namespace/" });
    expect(ns).toMatchObject({ code: "INVALID_ARGUMENT", field: "namespace" });
    expect(ns.message).toMatch(/_semantic\/decisions/);
    expect(await capture({ content: "x", confidence: 1.5 })).toMatchObject({ field: "confidence" });
    expect(await capture({ content: "x", confidence: Number.NaN })).toMatchObject({
      field: "confidence",
    });
    expect(await capture({ content: "x", memory_type: "dream" })).toMatchObject({
      field: "memory_type",
    });
    expect(
      await capture({ content: "x", tags: Array.from({ length: 40 }, (_, i) => `t${i}`) }),
    ).toMatchObject({
      field: "tags",
    });
    expect(await ctx.store.count({ status: "any" })).toBe(0);
  });

  it("updates part of a memory and bumps modified", async () => {
    const m = await ctx.services.memories.capture({ content: "v1", tags: ["a"], confidence: 0.4 });
    ctx.clock.advance(60_000);
    const u = await ctx.services.memories.update(m.id, {
      content: "v2",
      confidence: null,
      tags: undefined,
    });
    expect(u?.content).toBe("v2");
    expect(u?.title).toBe(m.title);
    expect(u?.tags).toEqual(["a"]);
    expect(u?.provenance.confidence).toBeNull();
    expect(u?.created).toBe(m.created);
    expect(Date.parse(u?.modified ?? "")).toBe(Date.parse(m.modified) + 60_000);
    expect(await ctx.services.memories.get(m.id)).toEqual(u);
    // The full-text index follows the change.
    const hits = await ctx.store.search({ text: "v2", syntax: "plain", limit: 5 });
    expect(hits.map((h) => h.memory.id)).toEqual([m.id]);
  });

  it("keeps modified strictly increasing even when the clock has not moved", async () => {
    const m = await ctx.services.memories.capture({ content: "x" });
    const u = await ctx.services.memories.update(m.id, { status: "archived" });
    expect(Date.parse(u?.modified ?? "")).toBeGreaterThan(Date.parse(m.modified));
    expect(u?.status).toBe("archived");
  });

  it("returns undefined for unknown ids and refuses bad patches", async () => {
    expect(await ctx.services.memories.update("nope", { content: "x" })).toBeUndefined();
    expect(await ctx.services.memories.get("nope")).toBeUndefined();
    const m = await ctx.services.memories.capture({ content: "x" });
    expect(await failure(ctx.services.memories.update(m.id, { namespace: "a//b" }))).toMatchObject({
      code: "INVALID_ARGUMENT",
      field: "namespace",
    });
    expect(await failure(ctx.services.memories.get(""))).toMatchObject({ field: "id" });
  });

  it("forgets a memory once", async () => {
    const m = await ctx.services.memories.capture({ content: "temporary" });
    expect(await ctx.services.memories.forget(m.id)).toBe(true);
    expect(await ctx.services.memories.forget(m.id)).toBe(false);
    expect(await ctx.services.memories.get(m.id)).toBeUndefined();
  });
});
