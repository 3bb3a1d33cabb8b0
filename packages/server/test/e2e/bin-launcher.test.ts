import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serverRoot, startServer } from "./spawn-server.js";

// The published launcher runs the compiled CLI; `npm test` builds first.
describe("the atlatl bin", () => {
  it("serves MCP over stdio from the compiled build", async () => {
    expect(existsSync(join(serverRoot, "dist/cli/main.js")), "run `npm run build` first").toBe(
      true,
    );
    const s = await startServer({ useBin: true });
    try {
      const { tools } = await s.client.listTools();
      expect(tools.map((t) => t.name)).toContain("recall_memories");
      expect(s.client.getServerVersion()).toMatchObject({ name: "atlatl" });
    } finally {
      await s.close();
    }
  });
});

describe("atlatl serve when the client goes away", () => {
  it("exits cleanly (status 0, no stack trace) when its stdout pipe closes", async () => {
    const { spawn } = await import("node:child_process");
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "atlatl-epipe-"));
    const child = spawn(
      process.execPath,
      ["--conditions=source", "--import", "tsx", join(serverRoot, "src/cli/main.ts"), "serve"],
      {
        cwd: serverRoot,
        env: {
          ...process.env,
          ATLATL_CONFIG: "",
          ATLATL_STORE__PATH: join(dir, "db"),
          ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: join(dir, "o"),
        },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    // Close the read end of the server's stdout, then send a request it must answer.
    child.stdout.destroy();
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`,
    );
    const code = await new Promise<number | null>((res) => child.on("close", (c) => res(c)));
    rmSync(dir, { recursive: true, force: true });
    expect(stderr).not.toMatch(/Unhandled 'error' event|EPIPE/);
    expect(code).toBe(0);
  });
});
