/**
 * What the proxy adds to every request a client sends its model (issue 30):
 * the tool definitions of `tools/list` beyond the upstream's, and the
 * `resources` capability, which makes a client add resource tools of its own
 * (Claude Code 2.1.328, tool search off: ListMcpResourcesTool,
 * ReadMcpResourceTool, ReadMcpResourceDirTool, 2,082 bytes, 467 o200k a
 * request). A client with a shell reads offload files with it, so it gets no
 * offload resources unless a flag says so; the upstream's own resources always
 * pass. SDK clients named as the real ones name themselves at `initialize`.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadTokenizer } from "@atlatl/lro";
import { afterAll, describe, expect, it } from "vitest";
import { loadProxyConfig } from "../src/config/proxy-config.js";
import {
  CLAUDE,
  CLAUDE_INSTALL,
  direct,
  EVERYTHING,
  FIXTURES,
  proxied,
  proxiedAs,
  tempDir,
} from "./helpers.js";

const ENV_SERVER = join(FIXTURES, "env-server.mjs");
/** The built bin, as a client's config starts it (`npm run build -w packages/proxy`). */
const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "atlatl-proxy.js");
const ENV = { FIXTURE_TOKEN: "t" };
const out = tempDir("atlatl-proxy-tool-defs-");
afterAll(() => out.remove());
const args = (...more: string[]) => ["--output-dir", out.dir, ...more];

/**
 * `lro_extract` as a client forwards it to its model (name, description,
 * input schema as JSON), measured: bytes and o200k tokens. Was 2,582 bytes,
 * 656 o200k; issue 30 asks ≤ 1,000 bytes for all the proxy adds to a Claude
 * Code request (which prefixes the name with `mcp__<server>__`).
 */
const LRO_EXTRACT = { bytes: 844, o200k: 212 };
const BUDGET_BYTES = 1000;

/**
 * A PATH whose one directory holds an executable `jq` (`withJq`) or nothing:
 * the proxy's `auto` decision looks for the jq CLI there.
 */
function pathDir(withJq: boolean): string {
  const dir = join(out.dir, withJq ? "bin-jq" : "bin-empty");
  mkdirSync(dir, { recursive: true });
  if (withJq) {
    writeFileSync(join(dir, "jq"), "#!/bin/sh\n");
    chmodSync(join(dir, "jq"), 0o755);
  }
  return dir;
}

describe("tool definitions the proxy adds", () => {
  it("is lro_extract alone, and it is small", async () => {
    const d = await direct([ENV_SERVER], undefined, ENV);
    // A client not known to have a shell is given lro_extract.
    const p = await proxied([ENV_SERVER], args(), undefined, ENV);
    try {
      const upstream = new Set((await d.client.listTools()).tools.map((t) => t.name));
      const added = (await p.client.listTools()).tools.filter((t) => !upstream.has(t.name));
      expect(added.map((t) => t.name)).toEqual(["lro_extract"]);
      const sent = added.map((t) =>
        JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema }),
      );
      const bytes = sent.reduce((n, s) => n + Buffer.byteLength(s), 0);
      const count = await loadTokenizer();
      const o200k = sent.reduce((n, s) => n + count(s), 0);
      expect({ bytes, o200k }).toEqual(LRO_EXTRACT);
      expect(bytes + "mcp__server__".length).toBeLessThanOrEqual(BUDGET_BYTES);
    } finally {
      await Promise.all([d.close(), p.close()]);
    }
  });
});

describe("lro_extract per client (prompt.offload.extract_tool)", () => {
  /** A result of 10 tokens, offloaded at --threshold 1: its descriptor's guidance. */
  const LONG = { FIXTURE_TOKEN: "a-token-of-forty-characters-for-the-test" };
  async function seen(clientName: string, withJq: boolean, ...more: string[]) {
    const p = await proxiedAs(clientName, [ENV_SERVER], args("--threshold", "1", ...more), {
      ...LONG,
      PATH: pathDir(withJq),
    });
    try {
      const tools = (await p.client.listTools()).tools.map((t) => t.name);
      const r = await p.client.callTool({ name: "token", arguments: {} });
      const text = (r.content as { type: string; text?: string }[])
        .map((b) => b.text ?? "")
        .join("\n");
      const { guidance } = JSON.parse(text) as { guidance: string };
      const subscribeError = await p.client.subscribeResource({ uri: "file:///x" }).then(
        () => "",
        (err: Error) => err.message,
      );
      return { tools, guidance, subscribeError };
    } finally {
      await p.close();
    }
  }

  it("a client with a shell and jq on PATH gets none (0 bytes added), and guidance for its shell", async () => {
    for (const name of ["claude-code", "codex-mcp-client", "gemini-cli-mcp-client-srv"]) {
      const { tools, guidance, subscribeError } = await seen(name, true);
      expect(tools, name).toEqual(["token"]);
      expect(subscribeError, name).toMatch(/offload files are read with a shell\)/);
      expect(guidance, name).not.toContain("lro_extract");
      expect(guidance, name).toContain("In a shell");
    }
  });

  it("is listed, and named by the guidance, without jq on PATH, for other clients, or when forced", async () => {
    for (const [name, withJq, ...flags] of [
      ["claude-code", false],
      ["claude-ai", true],
      ["claude-code", true, "--extract-tool"],
    ] as const) {
      const { tools, guidance } = await seen(name, withJq, ...flags);
      expect(tools, name).toEqual(["token", "lro_extract"]);
      expect(guidance, name).toContain("`lro_extract`(file_path=");
    }
    const off = await seen("claude-ai", true, "--no-extract-tool");
    expect(off.tools).toEqual(["token"]);
    expect(off.guidance).not.toContain("lro_extract");
  });
});

describe("offload files as resources", () => {
  it("a client with a shell (Claude Code, Codex, Gemini CLI) gets no resources capability", async () => {
    for (const name of ["claude-code", "codex-mcp-client", "gemini-cli-mcp-client-srv"]) {
      // Without jq on PATH: lro_extract still reads the files.
      const p = await proxiedAs(name, [ENV_SERVER], args(), { ...ENV, PATH: pathDir(false) });
      try {
        expect(p.client.getServerCapabilities()?.resources, name).toBeUndefined();
        expect(p.client.getServerCapabilities()?.tools, name).toBeDefined();
        expect((await p.client.listTools()).tools.map((t) => t.name)).toContain("lro_extract");
        // Nothing answers for resources, offload files included.
        const uri = "atlatl://offload/atlatl-x-01.jsonl";
        for (const request of [
          () => p.client.listResources(),
          () => p.client.readResource({ uri }),
          () => p.client.subscribeResource({ uri }),
        ]) {
          await expect(request(), name).rejects.toMatchObject({ code: -32601 });
        }
        await expect(p.client.subscribeResource({ uri: "file:///x" })).rejects.toThrow(
          /this server has no resources \(offload files are read with a shell or lro_extract\)/,
        );
      } finally {
        await p.close();
      }
    }
  });

  it("another client gets them, as does a client with a shell given --resources", async () => {
    const other = await proxied([ENV_SERVER], args(), undefined, ENV);
    const forced = await proxiedAs("claude-code", [ENV_SERVER], args("--resources"), ENV);
    try {
      for (const p of [other, forced]) {
        expect(p.client.getServerCapabilities()?.resources).toEqual({ listChanged: true });
        const { resourceTemplates } = await p.client.listResourceTemplates();
        expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["atlatl://offload/{name}"]);
      }
    } finally {
      await Promise.all([other.close(), forced.close()]);
    }
  });

  it("--no-resources takes them from any client", async () => {
    const p = await proxied([ENV_SERVER], args("--no-resources"), undefined, ENV);
    try {
      expect(p.client.getServerCapabilities()?.resources).toBeUndefined();
    } finally {
      await p.close();
    }
  });

  it("the upstream's own resources reach a client with a shell as they are, without ours", async () => {
    const d = await direct([EVERYTHING]);
    const p = await proxiedAs("claude-code", [EVERYTHING], args());
    try {
      expect(p.client.getServerCapabilities()?.resources).toEqual(
        d.client.getServerCapabilities()?.resources,
      );
      expect(await p.client.listResources()).toEqual(await d.client.listResources());
      expect(await p.client.listResourceTemplates()).toEqual(
        await d.client.listResourceTemplates(),
      );
      const { resources } = await d.client.listResources();
      const uri = (resources[0] as { uri: string }).uri;
      expect(await p.client.readResource({ uri })).toEqual(await d.client.readResource({ uri }));
    } finally {
      await Promise.all([d.close(), p.close()]);
    }
  });

  it("proxy.offload_resources: auto by default, on or off from the file or the environment", () => {
    expect(loadProxyConfig({}, {}).offloadResources).toBe("auto");
    expect(loadProxyConfig({}, { ATLATL_PROXY__OFFLOAD_RESOURCES: "on" }).offloadResources).toBe(
      "on",
    );
    expect(
      loadProxyConfig({ offloadResources: "off" }, { ATLATL_PROXY__OFFLOAD_RESOURCES: "on" })
        .offloadResources,
    ).toBe("off");
    expect(() => loadProxyConfig({}, { ATLATL_PROXY__OFFLOAD_RESOURCES: "yes" })).toThrow(
      /offload_resources.*one of auto, on, off/,
    );
  });
});

describe("Claude Code itself", () => {
  // Claude Code is a capability of the machine (.ci/run installs it), so under CI it must be there.
  it.skipIf(!CLAUDE && !process.env.CI)(
    "`claude mcp list` connects through the proxy, without offload resources or with them forced, to upstreams with and without resources",
    () => {
      expect(CLAUDE, `no Claude Code CLI (see .ci/run: ${CLAUDE_INSTALL})`).toBeDefined();
      const home = tempDir("atlatl-proxy-claude-");
      try {
        const node = process.execPath;
        const mcpServers = {
          plain: { command: node, args: [BIN, ...args(), "--", node, ENV_SERVER], env: ENV },
          forced: {
            command: node,
            args: [BIN, ...args("--resources"), "--", node, ENV_SERVER],
            env: ENV,
          },
          everything: { command: node, args: [BIN, ...args(), "--", node, EVERYTHING] },
        };
        writeFileSync(join(home.dir, ".claude.json"), JSON.stringify({ mcpServers }));
        const listed = spawnSync(CLAUDE as string, ["mcp", "list"], {
          cwd: home.dir,
          env: { PATH: process.env.PATH ?? "", HOME: home.dir },
          encoding: "utf8",
          timeout: 90_000,
        });
        const text = listed.stdout + listed.stderr;
        for (const name of Object.keys(mcpServers)) {
          expect(text, text).toMatch(new RegExp(`^${name}: .*atlatl-proxy\\.js.*Connected`, "m"));
        }
      } finally {
        home.remove();
      }
    },
    120_000,
  );
});
