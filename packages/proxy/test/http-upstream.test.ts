/**
 * `atlatl-proxy --url`: a Streamable HTTP upstream, and an SSE-only one reached
 * through the fallback; `--header` reaches both (the fixture refuses requests
 * without it). The fixture listens on 127.0.0.1 only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURES, PROXY_MAIN, tempDir } from "./helpers.js";

const out = tempDir("atlatl-proxy-http-");
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) c.kill();
  out.remove();
});

async function startUpstream(mode: "streamable" | "sse" | "modern"): Promise<string> {
  const script = mode === "modern" ? ["modern-http-server.mjs"] : ["http-server.mjs", mode];
  const child = spawn(process.execPath, [join(FIXTURES, script[0] as string), ...script.slice(1)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const [chunk] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return `http://127.0.0.1:${chunk.toString().trim()}/mcp`;
}

async function viaProxy(url: string, headers: string[]): Promise<Client> {
  const client = new Client({ name: "http-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [
        "--conditions=source",
        "--import",
        "tsx",
        PROXY_MAIN,
        "--output-dir",
        out.dir,
        "--url",
        url,
        ...headers,
      ],
      stderr: "pipe",
    }),
  );
  return client;
}

describe("atlatl-proxy --url", () => {
  for (const mode of ["streamable", "sse"] as const) {
    it(`reaches a ${mode === "sse" ? "SSE-only upstream through the fallback" : "Streamable HTTP upstream"}, with --header`, async () => {
      const url = await startUpstream(mode);
      const client = await viaProxy(url, ["--header", "x-test-token: secret"]);
      try {
        expect(client.getServerVersion()?.name).toBe(`http-fixture-${mode}`);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(["echo", "lro_extract"]);
        const r = await client.callTool({ name: "echo", arguments: { message: "hi" } });
        expect(r.content).toEqual([{ type: "text", text: `${mode}: hi` }]);
      } finally {
        await client.close();
      }
    });
  }

  it("speaks 2026-07-28 to a 2026 HTTP upstream (auto) and offloads its long result", async () => {
    const url = await startUpstream("modern");
    const client = await viaProxy(url, ["--header", "x-test-token: secret"]);
    try {
      expect(client.getServerVersion()?.name).toBe("modern-http-fixture");
      const era = await client.callTool({ name: "era", arguments: {} });
      expect(era.content).toEqual([{ type: "text", text: "2026-07-28" }]);
      const r = await client.callTool({ name: "lines", arguments: { count: 3000 } });
      const descriptor = JSON.parse((r.content as { text: string }[])[0]?.text as string);
      expect(descriptor.offloaded).toBe(true);
      expect(descriptor.summary.text.count).toBe(3000);
    } finally {
      await client.close();
    }
  });

  it("fails initialize with a clear error when the upstream refuses (no header)", async () => {
    const url = await startUpstream("streamable");
    await expect(viaProxy(url, [])).rejects.toThrow(/cannot connect to the upstream MCP server/);
  });
});
