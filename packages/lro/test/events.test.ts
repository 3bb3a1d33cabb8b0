/** Events: typed subscriptions, JSON lines on the sink, silenceable. */
import { describe, expect, it } from "vitest";
import { type LroEvent, LroEvents } from "../src/index.js";
import { Offloader } from "../src/node.js";
import { tempDir } from "./fixtures/helpers.js";
import { makeMemories } from "./fixtures/memory-records.js";

const expiredEvent: LroEvent = {
  type: "OffloadFileExpired",
  time: "2025-01-01T00:00:00.000Z",
  path: "/tmp/atlatl-recall-01JGFJJZ000000000000000000.jsonl",
  operation: "recall",
  created_at: "2024-12-31T23:00:00.000Z",
  expired_at: "2025-01-01T00:00:00.000Z",
  reason: "expired",
  bytes: 10,
};

describe("LroEvents", () => {
  it("writes one JSON line per event to the sink, event name first", () => {
    const lines: string[] = [];
    const events = new LroEvents({ sink: (l) => lines.push(l) });
    events.emit(expiredEvent);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.startsWith('{"event":"OffloadFileExpired"')).toBe(true);
    const { type: _type, ...rest } = expiredEvent;
    expect(JSON.parse(lines[0] as string)).toEqual({ event: "OffloadFileExpired", ...rest });
  });

  it("delivers to typed and wildcard subscribers, supports unsubscribe, survives throwing listeners", () => {
    const events = new LroEvents({ sink: null });
    const typed: string[] = [];
    const all: string[] = [];
    events.on("OffloadWriteFailed", () => {
      throw new Error("listener bug");
    });
    const off = events.on("OffloadFileExpired", (e) => typed.push(e.reason));
    events.on("*", (e) => all.push(e.type));
    events.emit(expiredEvent);
    off();
    events.emit(expiredEvent);
    events.emit({
      type: "OffloadWriteFailed",
      time: "t",
      operation: "recall",
      path: null,
      code: "ENOSPC",
      error: "no space",
      count: 1,
      estimated_tokens: 2,
    });
    expect(typed).toEqual(["expired"]);
    expect(all).toEqual(["OffloadFileExpired", "OffloadFileExpired", "OffloadWriteFailed"]);
  });

  it("logs to stderr by default, never stdout; a null sink silences it", async () => {
    const t = tempDir();
    const stderr: string[] = [];
    const stdout: string[] = [];
    const origErr = process.stderr.write.bind(process.stderr);
    const origOut = process.stdout.write.bind(process.stdout);
    process.stderr.write = ((s: string) =>
      stderr.push(String(s)) > 0) as typeof process.stderr.write;
    process.stdout.write = ((s: string) =>
      stdout.push(String(s)) > 0) as typeof process.stdout.write;
    try {
      const config = { enabled: true, thresholdTokens: 100, ttlSeconds: 60, outputDir: t.dir };
      await new Offloader({ config }).offloadRecords({
        operation: "recall",
        detail: "light",
        records: makeMemories(20),
      });
      await new Offloader({ config, events: new LroEvents({ sink: null }) }).offloadRecords({
        operation: "recall",
        detail: "light",
        records: makeMemories(20),
      });
    } finally {
      process.stderr.write = origErr;
      process.stdout.write = origOut;
      t.cleanup();
    }
    const ours = stderr.filter((l) => l.includes('"event":"OffloadCreated"'));
    expect(ours).toHaveLength(1);
    expect(ours[0]?.endsWith("\n")).toBe(true);
    expect(JSON.parse(ours[0] as string)).toMatchObject({
      event: "OffloadCreated",
      operation: "recall",
      count: 20,
      detail: "light",
    });
    expect(stdout.join("")).not.toContain("OffloadCreated");
  });
});
