/**
 * A persistent Python namespace for `python_exec` (the paper's Inline+Code
 * baseline): one sandboxed `python3` per sample, fed one JSON request a line.
 * A call that runs past the time limit kills the interpreter; the next call
 * starts a fresh one and says that state was lost.
 *
 * Replies cannot be forged by the code under test: everything the code writes,
 * by any route (print, sys.__stdout__, fd 1 or 2, child processes), goes to a
 * capture file and is the call's output; replies travel on a separate pipe
 * (fd 3), and each carries the call's random nonce. The harness takes only the
 * first reply with the current nonce, so a line the code writes to fd 3 is
 * dropped, and even code that digs the nonce out of the interpreter's memory
 * can only choose its own call's output (as printing does): a later answer is
 * never shifted, since the true reply then carries a stale nonce.
 */

import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { killGroup } from "./child.js";
import { DEFAULT_MAX_OUTPUT_BYTES, QUOTA_NOTICE, type Sandbox, type Workspace } from "./types.js";

/**
 * The REPL loop: exec the code, echo the last expression like a notebook. The
 * capture file is in /tmp (inside the sandbox's quota); at most argv[1] bytes
 * of it are sent back. The loop lives in a function so the nonce is not a
 * module global the code could simply import, and holds its own references to
 * json's functions so patching the json module does not rewrite replies.
 */
const REPL = `
import ast, io, json, os, sys, tempfile, traceback
def main(dumps=json.dumps, loads=json.loads):
    limit = int(sys.argv[1])
    home = os.getcwd()
    reply = os.fdopen(3, "w", encoding="utf-8")
    capture = tempfile.TemporaryFile(buffering=0)
    cap = capture.fileno()
    out = io.TextIOWrapper(io.FileIO(cap, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True)
    ns = {"__name__": "__main__"}
    for line in sys.stdin:
        request = loads(line)
        nonce, code = request["nonce"], request["code"]
        del line, request
        os.ftruncate(cap, 0)
        os.lseek(cap, 0, 0)
        os.dup2(cap, 1)
        os.dup2(cap, 2)
        sys.stdout = sys.stderr = out
        try:
            tree = ast.parse(code, "<python_exec>")
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, "<python_exec>", "exec"), ns)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "<python_exec>", "eval"), ns)
                if value is not None:
                    print(repr(value))
        except BaseException:
            try:
                traceback.print_exc()
            except BaseException:
                pass
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                stream.flush()
            except BaseException:
                pass
        size = os.fstat(cap).st_size
        output = os.pread(cap, min(size, limit), 0).decode("utf-8", "replace")
        try:
            full = any(os.statvfs(p).f_bavail == 0 for p in (home, "/tmp"))
        except OSError:
            full = False
        reply.write("\\n" + dumps({"nonce": nonce, "output": output, "full": full}) + "\\n")
        reply.flush()
main()
`;

/** Longest reply line read from fd 3 (JSON can escape each output byte to 6 characters). */
const MAX_REPLY_CHARS = 8 * DEFAULT_MAX_OUTPUT_BYTES;

interface PythonResult {
  output: string;
  timedOut: boolean;
  /** The interpreter was restarted before this call (earlier state is gone). */
  restarted: boolean;
  /** The sandbox's own word on the call (its disk quota was reached). */
  notice?: string;
}

interface Reply {
  output: string;
  full: boolean;
}

/** Call `onLine` for each line of `stream`; a line longer than `max` is dropped whole. */
function onLines(stream: Readable, max: number, onLine: (line: string) => void): void {
  let buffered = "";
  let skipping = false;
  stream.setEncoding("utf8");
  stream.on("error", () => {});
  stream.on("data", (chunk: string) => {
    const parts = (buffered + chunk).split("\n");
    buffered = parts.pop() ?? "";
    for (const line of parts) {
      if (!skipping) onLine(line);
      skipping = false;
    }
    if (buffered.length > max) {
      buffered = "";
      skipping = true;
    }
  });
}

export class PythonSession {
  private readonly workspace: Workspace;
  private child: ChildProcess | undefined;
  private pending: { nonce: string; settle: (reply: Reply | undefined) => void } | undefined;
  private started = 0;
  private stderrTail = "";
  /** Calls run one at a time; a request is written only after the last reply. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    sandbox: Sandbox,
    dir: string,
    private readonly timeoutMs: number,
  ) {
    this.workspace = sandbox.open(dir);
  }

  private async start(): Promise<ChildProcess> {
    const argv = ["python3", "-I", "-u", "-c", REPL, String(DEFAULT_MAX_OUTPUT_BYTES)];
    const child = await this.workspace.spawn(argv);
    this.child = child;
    this.started++;
    this.stderrTail = "";
    child.stdout?.resume();
    child.stderr?.on("data", (b: Buffer) => {
      this.stderrTail = (this.stderrTail + b.toString("utf8")).slice(-2000);
    });
    child.stdin?.on("error", () => {});
    onLines(child.stdio[3] as Readable, MAX_REPLY_CHARS, (line) => this.onReply(line));
    const gone = () => {
      if (this.child !== child) return;
      this.child = undefined;
      this.settle(undefined);
    };
    child.on("close", gone);
    child.on("error", gone);
    return child;
  }

  private onReply(line: string): void {
    const pending = this.pending;
    if (!pending || line === "") return;
    let reply: { nonce?: unknown; output?: unknown; full?: unknown };
    try {
      reply = JSON.parse(line);
    } catch {
      return;
    }
    if (reply?.nonce !== pending.nonce || typeof reply.output !== "string") return;
    this.settle({ output: reply.output, full: reply.full === true });
  }

  private settle(reply: Reply | undefined): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.settle(reply);
  }

  exec(code: string): Promise<PythonResult> {
    const result = this.queue.then(() => this.execNow(code));
    this.queue = result.catch(() => {});
    return result;
  }

  private async execNow(code: string): Promise<PythonResult> {
    const restarted = this.started > 0 && this.child === undefined;
    const child = this.child ?? (await this.start());
    const nonce = randomUUID();
    const reply = await new Promise<Reply | undefined>((resolve) => {
      const timer = setTimeout(() => this.close(), this.timeoutMs);
      this.pending = {
        nonce,
        settle: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      };
      if (this.child !== child) this.settle(undefined);
      else child.stdin?.write(`${JSON.stringify({ nonce, code })}\n`);
    });
    if (reply === undefined) {
      const why = this.stderrTail.trim();
      return {
        output: `python_exec: the interpreter was stopped (time limit ${this.timeoutMs} ms or crash); its variables are lost${why ? `\n${why}` : ""}`,
        timedOut: true,
        restarted,
      };
    }
    return {
      output: reply.output,
      timedOut: false,
      restarted,
      ...(reply.full ? { notice: QUOTA_NOTICE } : {}),
    };
  }

  close(): void {
    const child = this.child;
    this.child = undefined;
    if (child) killGroup(child);
    this.settle(undefined);
  }
}
