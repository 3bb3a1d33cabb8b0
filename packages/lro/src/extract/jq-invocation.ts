/**
 * How one jq run is spelled for jq-web (flags, program text) and how its
 * failure is reported: jq's own message, with anything this package or jq-web
 * put around the user's filter taken back out, or why the engine stopped it.
 */
import { LroError } from "../errors.js";
import type { JqRunRequest } from "./jq-options.js";
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
 * The one jq variable every parameter travels in. Parameter names may not
 * start with `__` (see the engine's name check), so no user name can clash.
 */
const PARAMS_VARIABLE = "__lro_params";

/**
 * The flags of one run, the program text handed to jq-web, and `hidden`: the
 * text jq will compile before the user's filter (removed from error messages
 * again, so they quote the filter as the user wrote it).
 *
 * A `limit` is pushed into jq (`limit(n; inputs | (f))` under `-n`, or
 * `limit(n; f)` under `-s`) so a large run stops early. The wrapper's closing
 * parenthesis sits on its own line so a trailing `# comment` in the filter
 * cannot swallow it.
 *
 * Parameters reach jq as data whatever their text: all of them go as one JSON
 * document through a single `--argjson`, and the program binds each name from
 * it (`$__lro_params as {$a, $b} | ...`). jq-web rewrites every flag array
 * element equal to `--argjson` (a *value* `"--argjson"` passed with `--arg`
 * was taken for a flag), and argv strings end at a NUL; the serialized JSON
 * document is neither (it starts with `{`, and escapes NUL as `\u0000`).
 * jq-web turns the `--argjson` into `--slurpfile` plus a `$NAME[0] as $NAME | `
 * prefix, which is part of `hidden`.
 */
export function buildInvocation(request: JqRunRequest): {
  flags: string[];
  sent: string;
  hidden: string;
} {
  const flags = ["-c"];
  if (request.slurp) flags.push("-s");
  let sent = request.filter;
  let hidden = "";
  let nullInput = request.nullInput === true;
  const limit = request.limit;
  if (limit !== undefined && Number.isInteger(limit) && limit > 0) {
    if (request.slurp) {
      hidden = `limit(${limit}; `;
      sent = `${hidden}${sent}\n)`;
    } else if (!nullInput && !READS_INPUTS.test(request.filter)) {
      hidden = `limit(${limit}; inputs | (`;
      sent = `${hidden}${sent}\n))`;
      nullInput = true;
    }
  }
  if (nullInput) flags.push("-n");
  const names = Object.keys(request.args ?? {});
  if (names.length > 0) {
    const v = `$${PARAMS_VARIABLE}`;
    const binding = `${v} as {${names.map((n) => `$${n}`).join(", ")}} | `;
    sent = binding + sent;
    hidden = `${v}[0] as ${v} | ${binding}${hidden}`;
    flags.push("--argjson", PARAMS_VARIABLE, JSON.stringify(request.args));
  }
  return { flags, sent, hidden };
}

/**
 * The error of a failed run; `hidden` is what was compiled before the user's
 * filter (see {@link buildInvocation}), removed from the quoted source line so
 * the message quotes the filter as the user wrote it.
 */
export function jqFailure(
  reply: WorkerReply,
  hidden: string,
  options: { maxMemoryBytes: number },
): LroError {
  let stderr = (reply.stderr ?? "").trim();
  if (hidden !== "") stderr = stderr.split(hidden).join("");
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

/** A run stopped by the engine: preempted for waiting runs, past its limit, or its worker died. */
export function stoppedError(why: "preempted" | "timeout" | Error, ms: number): LroError {
  if (why === "preempted") {
    return new LroError(
      "BUSY",
      `the jq filter was stopped after ${ms} ms because other queries were waiting for jq (while others wait, no run may hold a worker longer); run it again when fewer queries are pending, or narrow it (select early, use limit)`,
    );
  }
  if (why === "timeout") {
    return new LroError(
      "FILTER_ABORTED",
      `the jq filter was stopped after ${ms} ms (time limit); simplify it, or narrow it (select early, use limit)`,
    );
  }
  const oom = (why as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY";
  return new LroError(
    "FILTER_ABORTED",
    oom
      ? "the jq filter was stopped: its output or working set exceeded the memory limit; narrow the filter or use limit"
      : `the jq filter was stopped: ${why.message}`,
  );
}

/**
 * A run refused because as many runs wait as may: at once (`inLine` runs of
 * its principal already wait in its line, the most that may), or after
 * `waitedMs` in that line.
 */
export function busyError(
  running: number,
  waiting: number,
  line: { inLine?: number; waitedMs?: number } = {},
): LroError {
  const lined = line.waitedMs
    ? `, and this one waited ${line.waitedMs} ms in line for a place`
    : line.inLine
      ? ` and ${line.inLine} in line for a place (the most that may)`
      : "";
  return new LroError(
    "BUSY",
    `jq is busy: ${running} queries running and ${waiting} waiting (the most that may wait)${lined}; run this one again in a few seconds`,
  );
}

/** Names a jq variable may take here: identifiers, not jq's own `$ENV` / `$__loc__`. */
const ARG_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Why `request` cannot run at all (too large, a NUL in the filter, a bad variable name), if so. */
export function checkRequest(request: JqRunRequest, maxInputBytes: number): LroError | undefined {
  if (request.input.bytes.byteLength > maxInputBytes) {
    return new LroError(
      "INPUT_TOO_LARGE",
      `the input is ${request.input.bytes.byteLength} bytes, above the ${maxInputBytes}-byte limit of in-process jq`,
    );
  }
  if (request.filter.includes("\0")) {
    return new LroError("FILTER_INVALID", "the jq filter contains a NUL byte");
  }
  for (const name of Object.keys(request.args ?? {})) {
    if (!ARG_NAME.test(name) || name === "ENV" || name.startsWith("__")) {
      return new LroError(
        "INVALID_ARGUMENT",
        `parameter name ${JSON.stringify(name)} cannot be a jq variable: use letters, digits and _ (not ENV, not a leading __)`,
      );
    }
  }
  return undefined;
}
