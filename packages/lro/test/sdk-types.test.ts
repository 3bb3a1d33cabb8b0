/**
 * The published declarations of `@atlatl/lro` need no particular SDK line: a
 * server written on SDK 2.x only (`@modelcontextprotocol/server`, `client`)
 * and one on SDK 1.x only (`@modelcontextprotocol/sdk`) each type-check
 * (strict `tsc`) against the built package, in a project whose node_modules
 * hold that SDK line and not the other, and every module the package's
 * declarations import resolves there. Each host passes the SDK's own values
 * to LRO (tool callbacks, a client's `CallToolResult`, capabilities) and
 * LRO's to the SDK without a cast.
 *
 * Runs dist/: `npm run build -w @atlatl/lro` first.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "./fixtures/helpers.js";

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const modules = join(root, "node_modules");
const lroDir = join(root, "packages", "lro");
const t = tempDir("lro-sdk-types-");
afterAll(() => t.cleanup());

/** The SDK packages of each line (the rest of `@modelcontextprotocol` depends on 1.x). */
const LINES = {
  "2.x": ["server", "client", "core"],
  "1.x": ["sdk"],
} as const;

/** What both hosts do with LRO, on their own SDK's types. */
const COMMON = `
const offloader = new Offloader({
  config: { enabled: true, thresholdTokens: 400, ttlSeconds: 3600, outputDir: "/tmp/lro-types" },
  events: new LroEvents({ sink: null }),
});
const offload = withOffload({ offloader, resourceLinks: true, callResults: true });
const find = offload(async ({ q }: { q: string }) => ({
  operation: "search",
  query: q,
  profile: "records" as const,
  records: [{ q }],
}));
const own = offload(async (): Promise<CallToolResult> => ({ content: [{ type: "text", text: "x" }] }));

const upstream: ToolsUpstream = {
  listTools: async (): Promise<ListToolsResult> => ({ tools: [] as Tool[] }),
  callTool: async (): Promise<CallToolResult> => ({ content: [] }),
};
const resources: ResourcesUpstream = {
  listResources: async (): Promise<ListResourcesResult> => ({ resources: [] }),
  readResource: async (): Promise<ReadResourceResult> => ({ contents: [] }),
};
const low = new Server({ name: "low", version: "1.0.0" }, { capabilities: {} });
const extract = registerLroExtract(low, { offloader, upstream });
registerOffloadResources(low, { config: offloader.config, upstream: resources });
export const definition: Tool = extract.definition;
export const error: CallToolResult = toolErrorResult({ code: "X", message: "m" });

/** What a proxy does with an upstream's result (as its SDK's client types it). */
export async function relay(result: CallToolResult): Promise<CallToolResult> {
  const page: CallToolResult | undefined = readWholeSet(result)?.page;
  return page ?? offloadCallToolResult(offloader, result, { operation: "find" });
}
export const capabilities: ClientCapabilities = declareOffloadsLocally({ sampling: {} });
export const proxied: boolean = offloadsLocally(capabilities, { name: "p", version: "1", proxy: true });
export { find, own };
`;

const HOSTS = {
  "2.x": `
import { Client } from "@modelcontextprotocol/client";
import {
  type CallToolResult,
  type ClientCapabilities,
  type ListResourcesResult,
  type ListToolsResult,
  McpServer,
  type ReadResourceResult,
  ResourceTemplate,
  Server,
  type Tool,
} from "@modelcontextprotocol/server";
import { LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import {
  declareOffloadsLocally,
  offloadCallToolResult,
  offloadsLocally,
  readWholeSet,
  registerLroExtract,
  registerOffloadResources,
  type ResourcesUpstream,
  type ToolsUpstream,
  toolErrorResult,
  withOffload,
} from "@atlatl/lro/mcp";
import { z } from "zod";
${COMMON}
const server = new McpServer({ name: "orders", version: "1.0.0" });
server.registerTool("find", { inputSchema: z.object({ q: z.string() }) }, find);
server.registerTool("own", {}, own);
registerLroExtract(server, { offloader });
registerOffloadResources(server, { config: offloader.config, ResourceTemplate });
export const client = new Client({ name: "c", version: "1.0.0" }, { capabilities });
`,
  "1.x": `
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type {
  CallToolResult,
  ClientCapabilities,
  ListResourcesResult,
  ListToolsResult,
  ReadResourceResult,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { LroEvents } from "@atlatl/lro";
import { Offloader } from "@atlatl/lro/node";
import {
  declareOffloadsLocally,
  offloadCallToolResult,
  offloadsLocally,
  readWholeSet,
  registerLroExtract,
  registerOffloadResources,
  type ResourcesUpstream,
  type ToolsUpstream,
  toolErrorResult,
  withOffload,
} from "@atlatl/lro/mcp";
import { z } from "zod";
${COMMON}
const server = new McpServer({ name: "orders", version: "1.0.0" });
server.registerTool("find", { inputSchema: { q: z.string() } }, find);
server.registerTool("own", {}, own);
registerLroExtract(server, { offloader });
registerOffloadResources(server, { config: offloader.config, ResourceTemplate });
export const client = new Client({ name: "c", version: "1.0.0" }, { capabilities });
`,
};

/**
 * A project whose node_modules hold everything the workspace has but the
 * other SDK line, and a copy of @atlatl/lro as published (package.json, dist).
 */
function project(line: keyof typeof LINES): string {
  const dir = join(t.dir, line);
  const nm = join(dir, "node_modules");
  mkdirSync(join(nm, "@modelcontextprotocol"), { recursive: true });
  for (const name of readdirSync(modules)) {
    if (name === "@modelcontextprotocol" || name === "@atlatl" || name.startsWith(".")) continue;
    symlinkSync(join(modules, name), join(nm, name));
  }
  for (const pkg of LINES[line]) {
    symlinkSync(
      join(modules, "@modelcontextprotocol", pkg),
      join(nm, "@modelcontextprotocol", pkg),
    );
  }
  const lro = join(nm, "@atlatl", "lro");
  mkdirSync(lro, { recursive: true });
  cpSync(join(lroDir, "package.json"), join(lro, "package.json"));
  cpSync(join(lroDir, "dist"), join(lro, "dist"), { recursive: true });
  writeFileSync(join(dir, "host.ts"), HOSTS[line]);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2022",
        lib: ["ES2022", "DOM"],
        types: ["node"],
        noEmit: true,
        // The SDKs' own declarations need packages neither installs (express);
        // what LRO's need is checked through the resolution trace below.
        skipLibCheck: true,
        // Resolve from this project's node_modules, not the workspace's.
        preserveSymlinks: true,
      },
      files: ["host.ts"],
    }),
  );
  return dir;
}

/**
 * Modules imported from @atlatl/lro's declarations that did not resolve
 * (Node's built-ins resolve later, to @types/node's ambient declarations).
 */
function unresolvedFromLro(trace: string): string[] {
  const from = new Map<string, string>();
  const missing: string[] = [];
  for (const line of trace.split("\n")) {
    const resolving = /^======== Resolving module '(.+)' from '(.+)'\. ========$/.exec(line);
    if (resolving) from.set(resolving[1] as string, resolving[2] as string);
    const failed = /^======== Module name '(.+)' was not resolved\. ========$/.exec(line);
    const name = failed?.[1] as string;
    if (
      failed &&
      !name.startsWith("node:") &&
      from.get(name)?.includes("/node_modules/@atlatl/lro/")
    ) {
      missing.push(name);
    }
  }
  return missing;
}

describe.each(Object.keys(LINES) as (keyof typeof LINES)[])("a host on SDK %s alone", (line) => {
  it("type-checks against @atlatl/lro, whose declarations import nothing it lacks", async () => {
    const dir = project(line);
    const tsc = join(modules, "typescript", "bin", "tsc");
    const checked = await run(process.execPath, [tsc, "-p", dir, "--traceResolution"], {
      maxBuffer: 256 * 1024 * 1024,
    }).catch((e: { stdout: string }) => ({ stdout: e.stdout, failed: true }));
    expect(unresolvedFromLro(checked.stdout)).toEqual([]);
    const errors = checked.stdout.split("\n").filter((l) => /error TS\d+/.test(l));
    expect(errors).toEqual([]);
    expect("failed" in checked).toBe(false);
  }, 60_000);
});
