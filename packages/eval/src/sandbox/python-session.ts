/**
 * A persistent Python namespace for `python_exec` (the paper's Inline+Code
 * baseline): one sandboxed `python3` per sample, fed one JSON request a line.
 * A call that runs past the time limit kills the interpreter; the next call
 * starts a fresh one and says that state was lost.
 */
import type { ChildProcess } from "node:child_process";
import { createInterface, type Interface } from "node:readline";
import { killGroup, type Sandbox } from "./sandbox.js";

/** The REPL loop: exec the code, echo the last expression like a notebook. */
const REPL = `
import ast, contextlib, io, json, sys, traceback
ns = {"__name__": "__main__"}
for line in sys.stdin:
    code = json.loads(line)["code"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            tree = ast.parse(code, "<python_exec>")
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, "<python_exec>", "exec"), ns)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "<python_exec>", "eval"), ns)
                if value is not None:
                    print(repr(value))
        except BaseException:
            traceback.print_exc()
    sys.__stdout__.write(json.dumps({"output": buf.getvalue()}) + "\\n")
    sys.__stdout__.flush()
`;

export interface PythonResult {
  output: string;
  timedOut: boolean;
  /** The interpreter was restarted before this call (earlier state is gone). */
  restarted: boolean;
}

export class PythonSession {
  private child: ChildProcess | undefined;
  private lines: Interface | undefined;
  private pending: ((line: string | undefined) => void) | undefined;
  private started = 0;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly dir: string,
    private readonly timeoutMs: number,
  ) {}

  private start(): void {
    const child = this.sandbox.spawn(["python3", "-I", "-u", "-c", REPL], this.dir);
    this.child = child;
    this.started++;
    child.stderr?.resume();
    child.stdin?.on("error", () => {});
    this.lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    this.lines.on("line", (l) => this.settle(l));
    child.on("close", () => {
      if (this.child === child) {
        this.child = undefined;
        this.settle(undefined);
      }
    });
  }

  private settle(line: string | undefined): void {
    const p = this.pending;
    this.pending = undefined;
    p?.(line);
  }

  async exec(code: string): Promise<PythonResult> {
    const restarted = this.started > 0 && this.child === undefined;
    if (!this.child) this.start();
    const child = this.child as ChildProcess;
    const line = await new Promise<string | undefined>((resolve) => {
      this.pending = resolve;
      const timer = setTimeout(() => {
        this.close();
      }, this.timeoutMs);
      this.pending = (l) => {
        clearTimeout(timer);
        resolve(l);
      };
      child.stdin?.write(`${JSON.stringify({ code })}\n`);
    });
    if (line === undefined) {
      return {
        output: `python_exec: the interpreter was stopped (time limit ${this.timeoutMs} ms or crash); its variables are lost`,
        timedOut: true,
        restarted,
      };
    }
    return { output: (JSON.parse(line) as { output: string }).output, timedOut: false, restarted };
  }

  close(): void {
    const child = this.child;
    this.child = undefined;
    this.lines?.close();
    if (child) killGroup(child);
    this.settle(undefined);
  }
}
