/**
 * How one jq run is spelled for jq-web (flags, program text) and how its
 * failure is reported: jq's own message, with anything this package or jq-web
 * put around the user's filter taken back out.
 */
import { LroError } from "../errors.js";
import type { JqRunRequest } from "./jq-engine.js";
import type { WorkerReply } from "./jq-worker.js";

/** Split jq's stdout into output values (one per line under `-c`). */
export function splitLines(stdout: string): string[] {
  const lines = stdout.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Filters that read inputs themselves cannot be wrapped in `limit(n; inputs | ...)`. */
const READS_INPUTS = /input/;

/**
 * The flags of one run, the program text handed to jq-web, and the text jq
 * will actually compile. A `limit` is pushed into jq (`limit(n; inputs | (f))`
 * under `-n`, or `limit(n; f)` under `-s`) so a large run stops early; jq-web
 * turns each `--argjson NAME JSON` into `--slurpfile` plus a `$NAME[0] as $NAME | `
 * prefix. Error messages quote the compiled text, so it is mapped back to the
 * user's filter. The wrapper's closing parenthesis sits on its own line so a
 * trailing `# comment` in the filter cannot swallow it.
 */
export function buildInvocation(request: JqRunRequest): {
  flags: string[];
  sent: string;
  program: string;
} {
  const flags = ["-c"];
  if (request.slurp) flags.push("-s");
  let sent = request.filter;
  let nullInput = request.nullInput === true;
  const limit = request.limit;
  if (limit !== undefined && Number.isInteger(limit) && limit > 0) {
    if (request.slurp) {
      sent = `limit(${limit}; ${sent}\n)`;
    } else if (!nullInput && !READS_INPUTS.test(request.filter)) {
      sent = `limit(${limit}; inputs | (${sent}\n))`;
      nullInput = true;
    }
  }
  if (nullInput) flags.push("-n");
  let program = sent;
  for (const [name, value] of Object.entries(request.args ?? {})) {
    if (typeof value === "string") {
      flags.push("--arg", name, value);
    } else {
      flags.push("--argjson", name, JSON.stringify(value));
      program = `$${name}[0] as $${name} | ${program}`;
    }
  }
  return { flags, sent, program };
}

/**
 * The error of a failed run; `prefix` is what jq-web put before the program
 * (for `--argjson`), removed from the quoted source line so the message quotes
 * the filter as the user wrote it.
 */
export function jqFailure(
  reply: WorkerReply,
  prefix: string,
  options: { maxMemoryBytes: number },
): LroError {
  let stderr = (reply.stderr ?? "").trim();
  if (prefix !== "") stderr = stderr.split(prefix).join("");
  // jq pads the quoted program with spaces; they only confuse a reader.
  stderr = stderr
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n");
  if (reply.poisoned) {
    const memory = /cannot allocate memory|memory cap|out of memory/i.test(
      `${stderr}\n${reply.message ?? ""}`,
    );
    return new LroError(
      "FILTER_ABORTED",
      memory
        ? `the jq filter was stopped: it needed more than the ${Math.round(options.maxMemoryBytes / 2 ** 20)} MiB memory limit; narrow it (select early, use limit)`
        : `the jq filter was stopped: ${stderr || reply.message || "jq aborted"}`,
    );
  }
  if (reply.exitCode === 3) {
    return new LroError("FILTER_INVALID", stderr || "jq: compile error");
  }
  return new LroError(
    "FILTER_INVALID",
    stderr || `jq exited with status ${reply.exitCode ?? "unknown"} and no message`,
  );
}
