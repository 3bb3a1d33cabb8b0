/** `bash` and `python_exec`: code run in the sandbox, in the sample's directory only. */
import type { PythonSession } from "../sandbox/python-session.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { clip, fail, ok, type Tool } from "./types.js";

/** The sandbox's notice (if any) on a line of its own, first so no clip hides it. */
function withNotice(text: string, notice: string | undefined): string {
  return notice ? `${notice}\n${text}` : text;
}

export function bashTool(sandbox: Sandbox, dir: string, timeoutMs: number): Tool {
  // One workspace per sample: files written in the directory last between calls.
  const workspace = sandbox.open(dir);
  return {
    spec: {
      name: "bash",
      description:
        "Run a bash command in the working directory (which holds the offloaded files). jq, grep, awk, sed and python3 are available; no network.",
      parameters: {
        type: "object",
        properties: { command: { type: "string", description: "The command line to run" } },
        required: ["command"],
      },
    },
    async run(args) {
      if (typeof args.command !== "string" || args.command.trim() === "") {
        return fail("BAD_ARGUMENTS", 'bash needs {"command": "<a command line>"}');
      }
      const r = await workspace.run(["bash", "-c", args.command], { timeoutMs });
      let text = r.stdout;
      if (r.stderr) text += `${text && !text.endsWith("\n") ? "\n" : ""}[stderr]\n${r.stderr}`;
      text = withNotice(text, r.notice);
      if (r.timedOut)
        return fail("TIMEOUT", `command stopped after ${timeoutMs} ms\n${clip(text)}`);
      if (r.code !== 0) text += `\n[exit code ${r.code}]`;
      return { content: clip(text === "" ? "(no output)" : text), isError: r.code !== 0 };
    },
  };
}

export function pythonTool(session: PythonSession): Tool {
  return {
    spec: {
      name: "python_exec",
      description:
        "Execute Python 3 code in a persistent namespace (variables survive between calls). Print what you want to see; the value of a final expression is echoed. No network.",
      parameters: {
        type: "object",
        properties: { code: { type: "string", description: "Python source to execute" } },
        required: ["code"],
      },
    },
    async run(args) {
      if (typeof args.code !== "string") {
        return fail("BAD_ARGUMENTS", 'python_exec needs {"code": "<python source>"}');
      }
      const r = await session.exec(args.code);
      const note = r.restarted
        ? "[note: the interpreter was restarted; earlier variables are gone]\n"
        : "";
      if (r.timedOut) return fail("TIMEOUT", r.output);
      const output = withNotice(r.output === "" ? "(no output)" : r.output, r.notice);
      return ok(clip(`${note}${output}`));
    },
  };
}
