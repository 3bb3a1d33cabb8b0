/**
 * The client side of stdio toward a child upstream. The SDK's
 * `StdioClientTransport` buffers a message by concatenating every chunk to what
 * came before (quadratic: a 50 MB result takes tens of seconds) and closes the
 * upstream on a message over its limit; the proxy exists for large results, so
 * it reads with a chunk list joined once per line. Spawning, stderr passed
 * through, and closing (stdin end, then SIGTERM, then SIGKILL) follow the SDK's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/** Options of {@link ChildStdioTransport}. */
export interface ChildStdioOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string | undefined;
  /** Largest message accepted; a larger one is dropped with an error (the upstream lives on). */
  maxMessageBytes: number;
}

const GRACE_MS = 2000;

export class ChildStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private child: ChildProcess | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Dropping the rest of an oversized message, up to its newline. */
  private skipping = false;

  constructor(private readonly options: ChildStdioOptions) {}

  /** The child's process id, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
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
      child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
    });
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) {
        if (!this.skipping) this.hold(chunk.subarray(start));
        return;
      }
      if (this.skipping) this.skipping = false;
      else {
        const part = chunk.subarray(start, nl);
        const line = this.pending.length === 0 ? part : Buffer.concat([...this.pending, part]);
        this.pending = [];
        this.pendingBytes = 0;
        this.deliver(line);
      }
      start = nl + 1;
    }
  }

  private hold(part: Buffer): void {
    if (part.length === 0) return;
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.options.maxMessageBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = true;
      this.onerror?.(
        new Error(
          `a message from the upstream exceeds ${this.options.maxMessageBytes} bytes and was dropped`,
        ),
      );
      return;
    }
    this.pending.push(part);
  }

  private deliver(line: Buffer): void {
    let text = line.toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(text));
    } catch (err) {
      this.onerror?.(err as Error);
      return;
    }
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
