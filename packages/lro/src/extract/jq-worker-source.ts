/**
 * The body of the jq worker thread, as source text. It is evaluated with
 * `new Worker(source, { eval: true })` so the same code runs from `src/` (tests,
 * tsx) and from `dist/` without a loader or a file-path lookup; it is plain
 * CommonJS on purpose (no transpiler helpers can leak into it).
 *
 * What it does, and why:
 * - `process.argv` is cut to the executable before jq-web loads: Emscripten puts
 *   `argv[1]` into jq's `$ENV._`, which would reveal the server's script path.
 *   jq's environment is otherwise Emscripten's fixed fake one (`USER=web_user`),
 *   never the real `process.env` (and the worker is started with an empty env).
 * - `console` is silenced: jq-web prints stderr (`debug`, `stderr`) and
 *   Emscripten prints `Aborted()` through it, and a stdio server's stdout is the
 *   protocol channel.
 * - `WebAssembly.Memory.prototype.grow` refuses growth past `maxMemoryBytes`:
 *   worker `resourceLimits` do not cover WebAssembly memory, but Emscripten grows
 *   its heap through this JS method, so jq's `malloc` fails cleanly ("cannot
 *   allocate memory") instead of eating the machine. After such an abort the
 *   instance is poisoned and the main thread replaces the worker.
 * - jq-web sets `process.exitCode` on failures and mutates its flags array:
 *   the exit code is restored and the flags are copied.
 * - The last input (already skipped past the header) is kept, keyed, so
 *   repeated queries on one file are not copied across threads again.
 * - One trivial run precedes `ready`, so the lazy compilation of jq's code is
 *   not charged to the first user's time limit (or contended slice).
 */
export const JQ_WORKER_SOURCE = `"use strict";
const { parentPort, workerData } = require("node:worker_threads");
process.argv = [process.argv[0] || "node"];
for (const k of ["log", "info", "warn", "error", "debug", "trace", "dir"]) console[k] = () => {};
const cap = workerData.maxMemoryBytes;
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (delta) {
  if (this.buffer.byteLength + delta * 65536 > cap) throw new RangeError("memory cap reached");
  return grow.call(this, delta);
};
let inputKey = null;
let inputBytes = null;
require(workerData.jqPath).then(
  (jq) => {
    parentPort.on("message", (m) => {
      if (m.input) {
        inputKey = m.inputKey;
        inputBytes = m.input;
      }
      if (m.inputKey !== inputKey) {
        parentPort.postMessage({ id: m.id, ok: false, kind: "no-input" });
        return;
      }
      const before = process.exitCode;
      let stdout;
      let failure;
      const started = performance.now();
      try {
        stdout = jq.raw(inputBytes, m.filter, m.flags.slice());
      } catch (e) {
        failure = e;
      } finally {
        process.exitCode = before;
      }
      const ms = performance.now() - started;
      if (failure === undefined) {
        parentPort.postMessage({ id: m.id, ok: true, stdout: stdout || "", ms });
        return;
      }
      const exitCode = typeof failure.exitCode === "number" ? failure.exitCode : null;
      const stderr = typeof failure.stderr === "string" ? failure.stderr : "";
      const message = String((failure && failure.message) || failure);
      // A jq exit code means jq ran to completion; anything else (Emscripten
      // abort, out of memory, stack overflow) leaves the instance unusable.
      const poisoned = exitCode === null;
      parentPort.postMessage({ id: m.id, ok: false, kind: "jq", exitCode, stderr, message, poisoned, ms });
      if (poisoned) inputBytes = null;
    });
    // One trivial run first: the first call into a fresh instance compiles jq's
    // code lazily, which must not count against a user's time limit.
    try {
      jq.raw("null", ".", ["-c"]);
    } catch (e) {}
    parentPort.postMessage({ ready: true });
  },
  (err) => parentPort.postMessage({ ready: false, message: String((err && err.message) || err) }),
);
`;
