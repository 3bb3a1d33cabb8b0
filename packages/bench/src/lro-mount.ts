/**
 * What LRO adds to a server built per request (MCP 2026-07-28 over HTTP: a
 * fresh `McpServer` for every request): `registerLroExtract` and
 * `registerOffloadResources` on a new SDK 2.x server, in process, beside the
 * bare server alone. Microseconds per instance.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { registerLroExtract, registerOffloadResources } from "@atlatl/lro/mcp";
import { Offloader } from "@atlatl/lro/node";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/server";

const INSTANCES = 2000;

/** Microseconds per call of `build`, after as many unmeasured. */
function perInstance(build: () => void): number {
  for (let i = 0; i < INSTANCES; i++) build();
  const start = performance.now();
  for (let i = 0; i < INSTANCES; i++) build();
  return ((performance.now() - start) * 1000) / INSTANCES;
}

/** The bare server's cost and LRO's on top of it, µs per instance. */
export function lroMountCost(): { bareUs: number; withLroUs: number } {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-bench-mount-"));
  try {
    const offloader = new Offloader({
      config: { enabled: true, thresholdTokens: 1600, ttlSeconds: 3600, outputDir: dir },
      events: new LroEvents({ sink: null }),
    });
    const bare = () => {
      new McpServer({ name: "b", version: "1" }).server.registerCapabilities({ tools: {} });
    };
    const withLro = () => {
      const server = new McpServer({ name: "b", version: "1" });
      server.server.registerCapabilities({ tools: {} });
      registerLroExtract(server.server, { offloader, upstream: {} });
      registerOffloadResources(server, {
        ResourceTemplate,
        config: offloader.config,
        events: offloader.events,
      }).close();
    };
    return { bareUs: perInstance(bare), withLroUs: perInstance(withLro) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
