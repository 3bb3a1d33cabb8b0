/**
 * A 2026-07-28 connection over real stdio checks every request, not only the
 * opening one: a request claiming a revision atlatl does not serve gets
 * -32022 naming the ones it does (the connection serves on), and a
 * `subscriptions/listen` asking for `taskIds` without the tasks extension
 * declared gets -32021 (SEP-2663); with the extension it is acknowledged.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
