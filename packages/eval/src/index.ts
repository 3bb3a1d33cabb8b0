/**
 * `atlatl-eval`: the LRO paper's evaluation harness on the atlatl engine. The
 * CLI (`atlatl-eval run|score|report|corpus`) is the usual entry point; these
 * exports let other tools drive the same pieces.
 */
export * from "./conditions/conditions.js";
export { systemPrompt } from "./conditions/prompts.js";
export * from "./corpus/freeze.js";
export { generateRecords, type MemoryRecord } from "./corpus/records.js";
export * from "./corpus/tasks.js";
export { createSandbox, type Sandbox, type SandboxMode } from "./sandbox/sandbox.js";
export { ablateDescriptor } from "./strategies/ablate.js";
export { createEnvironment, type ToolEnvironment } from "./tools/environment.js";
