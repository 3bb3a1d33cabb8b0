/**
 * One sample's tools: a throw-away working directory (0700) holding only this
 * task's files, and the condition's tools bound to it. `close()` stops the
 * Python interpreter and the jq worker and deletes the directory.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Condition } from "../conditions/conditions.js";
import type { MemoryRecord } from "../corpus/records.js";
import { PythonSession } from "../sandbox/python-session.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { type NativeExtractor, nativeExtractor } from "../strategies/lro-descriptor.js";
import { bashTool, pythonTool } from "./code-tools.js";
import { type ListMemoriesState, listMemoriesTool } from "./list-memories.js";
import { lroExtractTool } from "./lro-extract.js";
import { readFileTool } from "./read-file.js";
import { fail, type Tool, type ToolOutput, type ToolSpec } from "./types.js";

export interface ToolEnvironment {
  dir: string;
  specs: ToolSpec[];
  state: ListMemoriesState;
  call(name: string, args: Record<string, unknown>): Promise<ToolOutput>;
  close(): Promise<void>;
}

interface EnvironmentOptions {
  sandbox: Sandbox;
  /** Per-call limit of `bash` and `python_exec`. */
  timeoutMs: number;
  /** Parent of the working directory (default: the system temp dir). */
  root?: string;
}

export async function createEnvironment(
  condition: Condition,
  records: readonly MemoryRecord[],
  options: EnvironmentOptions,
): Promise<ToolEnvironment> {
  const dir = await mkdtemp(join(options.root ?? tmpdir(), "atlatl-eval-"));
  const state: ListMemoriesState = {};
  let python: PythonSession | undefined;
  let extractor: NativeExtractor | undefined;
  const tools = new Map<string, Tool>();
  for (const name of condition.tools) {
    let tool: Tool;
    switch (name) {
      case "list_memories":
        tool = listMemoriesTool(records, condition.delivery, dir, state);
        break;
      case "bash":
        tool = bashTool(options.sandbox, dir, options.timeoutMs);
        break;
      case "python_exec":
        python = new PythonSession(options.sandbox, dir, options.timeoutMs);
        tool = pythonTool(python);
        break;
      case "read_file":
        tool = readFileTool(dir);
        break;
      case "lro_extract":
        extractor = nativeExtractor(dir);
        tool = lroExtractTool(extractor);
        break;
    }
    tools.set(name, tool);
  }
  return {
    dir,
    state,
    specs: [...tools.values()].map((t) => t.spec),
    async call(name, args) {
      const tool = tools.get(name);
      if (!tool) {
        return fail(
          "UNKNOWN_TOOL",
          `no tool named ${JSON.stringify(name)}; available: ${[...tools.keys()].join(", ")}`,
        );
      }
      try {
        return await tool.run(args);
      } catch (err) {
        return fail("TOOL_FAILED", (err as Error)?.message ?? String(err));
      }
    },
    async close() {
      python?.close();
      await extractor?.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
