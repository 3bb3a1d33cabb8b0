/**
 * `atlatl serve` stopped by SIGINT (Ctrl-C in the terminal that started it)
 * closes without telling the client its tools and resources changed: they did
 * not, the server is going away, and a client that believes the notification
 * asks again and logs a failed retry.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { binPath } from "./spawn-server.js";

const dir = mkdtempSync(join(tmpdir(), "atlatl-sigint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("atlatl serve on SIGINT", () => {
  it("closes and sends no tools/list_changed or resources/list_changed while closing", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [binPath, "serve", "--db", join(dir, "m.db")],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: dir,
        ATLATL_CONFIG: "",
        ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: join(dir, "out"),
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "sigint-test", version: "1.0.0" });
    const received: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => {
      received.push(n.method);
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, (n) => {
      received.push(n.method);
    });
    const closed = new Promise<void>((done) => {
      client.onclose = done;
    });
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const pid = transport.pid;
    expect(pid).not.toBeNull();
    process.kill(pid as number, "SIGINT");
    await closed;
    expect(received).toEqual([]);
  });
});
