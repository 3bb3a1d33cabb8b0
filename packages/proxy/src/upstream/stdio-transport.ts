/**
 * The client side of stdio toward a child upstream. The SDK's
 * `StdioClientTransport` buffers a message by concatenating every chunk to what
 * came before (quadratic: a 50 MB result takes tens of seconds) and closes the
 * upstream on a message over its limit; the proxy exists for large results, so
 * it reads with `@atlatl/lro`'s framer (a chunk list joined once per line), and
 * answers the call of a response over the bound with an error. Spawning, stderr
 * passed through, and closing (stdin end, then SIGTERM, then SIGKILL) follow the
 * SDK's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { lineBoundary, MessageFramer } from "@atlatl/lro/node";
import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import { droppedNotice, droppedResponseId, tooLargeResponse } from "./message-bound.js";

/** Options of {@link ChildStdioTransport}. */
interface ChildStdioOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string | undefined;
  /** Largest message accepted; a larger one is dropped and its call fails (the upstream lives on). */
  maxMessageBytes: number;
}

const GRACE_MS = 2000;

export class ChildStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private child: ChildProcess | undefined;
  private readonly framer: MessageFramer;

  constructor(private readonly options: ChildStdioOptions) {
    this.framer = new MessageFramer(options.maxMessageBytes, lineBoundary, {
      message: (parts) =>
        this.deliver(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts)),
      overflow: () => this.onerror?.(droppedNotice(options.maxMessageBytes)),
      dropped: (head, tail) => this.dropped(head, tail),
    });
  }

  /** The child's process id, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * The child's stderr is passed through to ours, never piped. Declared (with
   * `pid`) so the SDK's client recognises a stdio transport: its `auto`
   * negotiation then treats a probe that times out as a 2025 server.
   */
  get stderr(): null {
    return null;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, this.options.args, {
        env: this.options.env,
        cwd: this.options.cwd,
        stdio: ["pipe", "pipe", "inherit"],
        windowsHide: true,
      });
      this.child = child;
      child.on("error", (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (err) => this.onerror?.(err));
      child.stdout?.on("data", (chunk: Buffer) => this.framer.push(chunk));
    });
  }

  /**
   * A line over the bound was dropped: when it was a response, its call is
   * answered with an error in its place (the upstream and the session go on).
   */
  private dropped(head: Buffer, tail: Buffer): void {
    const id = droppedResponseId(head.toString("utf8"), tail.toString("utf8"));
    if (id !== undefined) this.dispatch(tooLargeResponse(id, this.options.maxMessageBytes));
  }

  private deliver(line: Buffer): void {
    // The bound keeps the line within V8's longest string (see MAX_MESSAGE_BYTES).
    let end = line.length;
    if (line[end - 1] === 10) end--;
    if (line[end - 1] === 13) end--;
    const text = line.toString("utf8", 0, end);
    if (text.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(JSON.parse(text));
    } catch (err) {
      this.onerror?.(err as Error);
      return;
    }
    this.dispatch(message);
  }

  private dispatch(message: JSONRPCMessage): void {
    // The SDK handles a notification a microtask later but a response at once,
    // and forgets a request's progress token with its response: a progress
    // notification read together with its response would be dropped. Messages
    // after a progress notification wait for the next macrotask.
    if (this.queue) {
      this.queue.push(message);
      return;
    }
    this.onmessage?.(message);
    if ("method" in message && message.method === "notifications/progress") {
      this.queue = [];
      setImmediate(() => this.drain());
    }
  }

  /** Messages held behind a progress notification. */
  private queue: JSONRPCMessage[] | undefined;

  private drain(): void {
    const held = this.queue ?? [];
    this.queue = undefined;
    for (const [i, message] of held.entries()) {
      this.onmessage?.(message);
      if ("method" in message && message.method === "notifications/progress") {
        this.queue = held.slice(i + 1);
        setImmediate(() => this.drain());
        return;
      }
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin) return reject(new Error("Not connected"));
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const wait = (ms: number) =>
      Promise.race([
        exited.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
      ]);
    child.stdin?.end();
    if (await wait(GRACE_MS)) return;
    child.kill("SIGTERM");
    if (await wait(GRACE_MS)) return;
    child.kill("SIGKILL");
  }
}
