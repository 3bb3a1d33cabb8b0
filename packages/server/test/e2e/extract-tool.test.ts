/**
 * `lro_extract` per client over stdio (`prompt.offload.extract_tool`, issue 30):
 * a client whose agent has a shell here (Claude Code, Codex, Gemini CLI) and can
 * run the jq recipes (jq on PATH) is not sent the tool's definition with every
 * request, and neither the descriptor's guidance nor the server's instructions
 * name it; any other client, a client without jq, or `--extract-tool` gets it.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, describe, expect, it } from "vitest";
import { call, jsonOf, serverRoot, startServer } from "./spawn-server.js";

const bins = mkdtempSync(join(tmpdir(), "atlatl-extract-tool-"));
afterAll(() => rmSync(bins, { recursive: true, force: true }));

/** A PATH of one directory, holding an executable `jq` or nothing. */
function pathWith(jq: boolean): string {
  const dir = join(bins, jq ? "with-jq" : "empty");
  mkdirSync(dir, { recursive: true });
  if (jq) {
    writeFileSync(join(dir, "jq"), "#!/bin/sh\n");
    chmodSync(join(dir, "jq"), 0o755);
  }
  return dir;
}

/** What `clientName` is shown: the tools, the instructions, an offloaded recall's guidance. */
async function seen(clientName: string, jq: boolean, ...args: string[]) {
  const s = await startServer({
    clientName,
    args: ["--threshold", "1", ...args],
    env: { PATH: pathWith(jq) },
  });
  try {
    const tools = (await s.client.listTools()).tools.map((t) => t.name);
    const instructions = s.client.getInstructions() ?? "";
    await call(s.client, "capture_memory", {
      title: "Rate limiter",
      content: "The rate limiter allows 100 requests a minute per token.",
      namespace: "_semantic/decisions",
    });
    const r = await call(s.client, "recall_memories", { query: "rate limiter" });
    const { offloaded, guidance } = jsonOf<{ offloaded?: boolean; guidance: string }>(r);
    expect(offloaded).toBe(true);
    return { tools, instructions, guidance };
  } finally {
    await s.close();
  }
}

describe("atlatl serve: lro_extract per client", () => {
  it("a client with a shell and jq on PATH gets no lro_extract, and nothing names it", async () => {
    for (const name of ["claude-code", "codex-mcp-client"]) {
      const { tools, instructions, guidance } = await seen(name, true);
      expect(tools, name).not.toContain("lro_extract");
      expect(tools, name).toContain("recall_memories");
      expect(instructions, name).not.toContain("lro_extract");
      expect(guidance, name).not.toContain("lro_extract");
    }
  }, 60_000);

  it("a 2026-07-28 client is told by the name in its requests' envelope (Claude Code 2.1.328 speaks it)", async () => {
    const list = async (name: string) => {
      const client = new Client(
        { name, version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [
            "--conditions=source",
            "--import",
            "tsx",
            join(serverRoot, "src/cli/main.ts"),
          ].concat(["serve", "--db", join(bins, `${name}.db`)]),
          env: {
            ...(process.env as Record<string, string>),
            ATLATL_CONFIG: "",
            ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: join(bins, "offload"),
            PATH: pathWith(true),
          },
          cwd: serverRoot,
          stderr: "pipe",
        }),
      );
      try {
        expect(client.getProtocolEra()).toBe("modern");
        return (await client.listTools()).tools.map((t) => t.name);
      } finally {
        await client.close();
      }
    };
    expect(await list("claude-code")).not.toContain("lro_extract");
    expect(await list("atlatl-e2e")).toContain("lro_extract");
  }, 60_000);

  it("gets it, named by guidance and instructions, without jq, as another client, or when forced", async () => {
    for (const [name, jq, ...flags] of [
      ["claude-code", false],
      ["atlatl-e2e", true],
      ["claude-code", true, "--extract-tool"],
    ] as const) {
      const { tools, instructions, guidance } = await seen(name, jq, ...flags);
      expect(tools.at(-1), name).toBe("lro_extract");
      expect(instructions, name).toContain("lro_extract");
      expect(guidance, name).toContain("lro_extract");
    }
    const off = await seen("atlatl-e2e", true, "--no-extract-tool");
    expect(off.tools).not.toContain("lro_extract");
    expect(off.guidance).not.toContain("lro_extract");
  }, 90_000);
});
