/**
 * A cancelled read tool call writes nothing (issue 27 §7): every read tool
 * (recall, search, list, inject) stops its store read when the client cancels
 * the request (the SDK client's `AbortSignal`, sent as
 * `notifications/cancelled`), and the offload file it had begun to stream is
 * removed: no file is left and no `OffloadCreated` is emitted. Judged on
 * state, not on time: the store holds its whole-set read at a gate after the
 * file has begun (over 1 MiB of lines), the call is cancelled, the server is
 * known to have the cancellation (a ping answered after it), and only then is
 * the gate opened; the writer then either publishes its file or removes it.
 */
import { readdirSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { nodeOffloadFs, Offloader, type OffloadFs } from "@atlatl/lro/node";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AtlatlServer, createAtlatlServer } from "../../src/mcp/create-server.js";
import { createServices } from "../../src/services/create-services.js";
import type { MemoryStore } from "../../src/store/store.js";
import { BACKENDS } from "../backends/backends.js";
import { makeMemory } from "../store/fixtures.js";

const MEMORIES = 1000;
/** Hits handed over before the gate: ~1.4 MB of full lines, past the 1 MiB where streaming starts. */
const BEFORE_GATE = 600;

/** A whole-set read held at a gate, and what it did. */
class Gate {
  yielded = 0;
  private open: () => void = () => {};
  private readonly opened = new Promise<void>((r) => {
    this.open = r;
  });
  private reached: () => void = () => {};
  /** Resolves when the read waits at the gate. */
  readonly held = new Promise<void>((r) => {
    this.reached = r;
  });
  private closed: () => void = () => {};
  /** Resolves when the read is left (finished or stopped). */
  readonly left = new Promise<void>((r) => {
    this.closed = r;
  });

  async *pass<T>(hits: AsyncIterable<T>): AsyncGenerator<T> {
    try {
      for await (const hit of hits) {
        if (this.yielded === BEFORE_GATE) {
          this.reached();
          await this.opened;
        }
        this.yielded++;
        yield hit;
      }
    } finally {
      this.closed();
    }
  }

  release(): void {
    this.open();
  }
}

/** `store` whose whole-set reads (ranked, searched, listed) go through `gate()`. */
function gated(store: MemoryStore, gate: () => Gate): MemoryStore {
  const whole = new Set<string | symbol>(["rankAll", "searchAll", "listAll"]);
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      if (whole.has(key)) {
        return (query: unknown) =>
          gate().pass((value as (q: unknown) => AsyncIterable<unknown>).call(target, query));
      }
      return value.bind(target);
    },
  });
}

/** What the offload writer did with its file: published (renamed into place) or removed. */
function watchedFs(): { fs: OffloadFs; settled: Promise<"published" | "removed"> } {
  let settle: (how: "published" | "removed") => void = () => {};
  const settled = new Promise<"published" | "removed">((r) => {
    settle = r;
  });
  const fs: OffloadFs = {
    ...nodeOffloadFs,
    async rename(from, to) {
      await nodeOffloadFs.rename(from, to);
      settle("published");
    },
    async unlink(path) {
      try {
        await nodeOffloadFs.unlink(path);
      } finally {
        settle("removed");
      }
    },
  };
  return { fs, settled };
}

const CALLS = [
  ["recall_memories", { query: "beacon", detail: "full" }],
  ["search_memories", { query: "beacon", detail: "full" }],
  ["list_memories", { detail: "full" }],
  ["inject_context", { query: "beacon", detail: "full", limit: 1000 }],
] as const;

describe("a cancelled read tool call", () => {
  let raw: MemoryStore;
  let dir: string;
  let server: AtlatlServer | undefined;
  let client: Client | undefined;

  beforeEach(async () => {
    raw = await (BACKENDS[0] as (typeof BACKENDS)[number]).open();
    await raw.upsertMany(
      Array.from({ length: MEMORIES }, (_, i) =>
        makeMemory({ content: `beacon ${i} ${"signal flare ".repeat(180)}` }),
      ),
    );
    dir = await mkdtemp(join(tmpdir(), "atlatl-read-cancel-"));
  });

  afterEach(async () => {
    await client?.close();
    await server?.close();
    await raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(CALLS)(
    "%s stops its store read and leaves no file and no OffloadCreated",
    async (name, args) => {
      const gate = new Gate();
      const { fs, settled } = watchedFs();
      const events = new LroEvents({ sink: null });
      const created: unknown[] = [];
      events.on("OffloadCreated", (e) => created.push(e));
      const offloader = new Offloader({
        config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir: dir },
        events,
        fs,
      });
      server = createAtlatlServer({ services: createServices(gated(raw, () => gate)), offloader });
      const [a, b] = InMemoryTransport.createLinkedPair();
      client = new Client({ name: "read-cancel-test", version: "1.0.0" });
      await Promise.all([server.server.connect(a), client.connect(b)]);

      const abort = new AbortController();
      const call = client.callTool({ name, arguments: args }, { signal: abort.signal }).then(
        () => "answered" as const,
        () => "cancelled" as const,
      );
      await gate.held;
      // The file has begun: a temporary file is in the directory.
      expect(readdirSync(dir)).toHaveLength(1);
      abort.abort("the user moved on");
      expect(await call).toBe("cancelled");
      // Answered after the cancellation, which the server handles first.
      await client.ping();
      gate.release();

      expect(await settled).toBe("removed");
      await gate.left;
      expect(gate.yielded).toBeLessThan(MEMORIES);
      expect(readdirSync(dir)).toEqual([]);
      expect(created).toEqual([]);
    },
    60_000,
  );
});
