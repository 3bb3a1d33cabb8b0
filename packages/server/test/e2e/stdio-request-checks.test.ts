/**
 * A 2026-07-28 connection over real stdio checks every request, not only the
 * opening one: a request claiming a revision atlatl does not serve gets
 * -32022 naming the ones it does (the connection serves on), and a
 * `subscriptions/listen` asking for `taskIds` without the tasks extension
 * declared gets -32021 (SEP-2663); with the extension it is acknowledged.
 * The gate itself: an opening the SDK refuses opens again; a 2025 connection
 * is read at its `initialize` only.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateRequests } from "../../src/cli/request-gate.js";
import { Lines } from "./raw-lines.js";
import { serverRoot } from "./spawn-server.js";

const cli = ["--conditions=source", "--import", "tsx", join(serverRoot, "src/cli/main.ts")];
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

describe("atlatl serve over stdio, 2026-07-28: every request is checked", () => {
  const dir = mkdtempSync(join(tmpdir(), "atlatl-stdio-checks-"));
  let child: ChildProcessWithoutNullStreams;
  let lines: Lines;

  beforeAll(() => {
    child = spawn(process.execPath, [...cli, "--db", join(dir, "atlatl.db"), "serve"], {
      env: {
        ...(process.env as Record<string, string>),
        ATLATL_CONFIG: "",
        ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: join(dir, "offload"),
      },
      cwd: serverRoot,
    });
    lines = new Lines(child, "modern");
  });
  afterAll(() => {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a later request claiming an unsupported revision with -32022, and serves on", async () => {
    const opening = await lines.request("tools/list", {});
    expect(opening.error).toBeUndefined();
    const { supportedVersions } = (await lines.request("server/discover", {})).result as {
      supportedVersions: string[];
    };
    // The modern revisions the SDK's entry offers: those a refusal names.
    expect(supportedVersions.filter((v) => v >= "2026-07-28")).toEqual(["2026-07-28"]);
    for (const version of ["1900-01-01", "2099-01-01", "2025-11-25"]) {
      const refused = await lines.request("tools/list", {}, {}, {}, version);
      expect(refused.result).toBeUndefined();
      expect(refused.error).toMatchObject({
        code: -32022,
        data: { requested: version, supported: ["2026-07-28"] },
      });
    }
    const after = await lines.request("tools/list", {});
    expect(after.error).toBeUndefined();
    expect(after.result).toMatchObject({ tools: expect.any(Array) });
  });

  it("refuses subscriptions/listen for taskIds without the tasks extension: -32021", async () => {
    const refused = await lines.request("subscriptions/listen", {
      notifications: { taskIds: ["t-1"] },
    });
    expect(refused.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: TASKS },
    });
    expect(refused.error?.message).toContain("io.modelcontextprotocol/tasks");
  });

  it("acknowledges the same listen when the request declares the tasks extension", async () => {
    const before = lines.seen.length;
    // The stream stays open: its acknowledgement is what answers it.
    void lines.request("subscriptions/listen", { notifications: { taskIds: ["t-1"] } }, TASKS);
    const since = () => lines.seen.slice(before);
    await expect
      .poll(() => since().some((l) => l.method === "notifications/subscriptions/acknowledged"))
      .toBe(true);
    expect(since().filter((l) => l.error !== undefined)).toEqual([]);
  });
});

describe("gateRequests", () => {
  const line = (message: Record<string, unknown>) => Buffer.from(`${JSON.stringify(message)}\n`);
  const claim = (version: string) => ({
    _meta: { "io.modelcontextprotocol/protocolVersion": version },
  });
  async function run(messages: Record<string, unknown>[]) {
    const seen = { passed: [] as unknown[], refused: [] as unknown[], dropped: [] as string[] };
    const infos: Record<string, unknown>[] = [];
    const gate = gateRequests({
      onInitialize: (info) => infos.push(info),
      refuse: (r) => seen.refused.push(r),
      dropped: (why) => seen.dropped.push(why),
    });
    gate.on("data", (b: Buffer) => seen.passed.push(JSON.parse(b.toString())));
    for (const m of messages) gate.write(line(m));
    gate.end();
    await new Promise((resolve) => gate.on("end", resolve));
    return { ...seen, infos };
  }

  it("lets an opening the SDK refuses open again, then checks every later message", async () => {
    const r = await run([
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: claim("2099-01-01") },
      { jsonrpc: "2.0", id: 2, method: "server/discover", params: claim("2026-07-28") },
      { jsonrpc: "2.0", id: 3, method: "tools/list", params: claim("2099-01-01") },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: claim("1900-01-01") },
    ]);
    // The SDK answers the refused opening; the gate passes it on.
    expect(r.passed.map((m) => (m as { id?: number }).id)).toEqual([1, 2]);
    expect(r.refused).toEqual([
      expect.objectContaining({ id: 3, error: expect.objectContaining({ code: -32022 }) }),
    ]);
    expect(r.dropped).toEqual([expect.stringContaining("notifications/cancelled")]);
  });

  it("reads a 2025 initialize's clientInfo as sent and nothing after it", async () => {
    const clientInfo = { name: "p", version: "1", proxy: true };
    const r = await run([
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { clientInfo } },
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: claim("1900-01-01") },
    ]);
    expect(r.infos).toEqual([clientInfo]);
    expect(r.passed).toHaveLength(2);
    expect(r.refused).toEqual([]);
  });
});
