/**
 * A 2026-07-28 client through the proxy over real stdio: every request is
 * checked, not only the opening one. A later request claiming a revision the
 * proxy does not serve gets -32022 (the session serves on); a
 * `subscriptions/listen` for `taskIds` without the tasks extension declared
 * gets -32021 (SEP-2663).
 */
import { afterAll, describe, expect, it } from "vitest";
import { envelope, MODERN, rawProxied, tempDir } from "./helpers.js";

const out = tempDir("atlatl-proxy-checks-");
const p = rawProxied([MODERN], ["--output-dir", out.dir]);
afterAll(() => {
  p.close();
  out.remove();
});

const claiming = (version: string) => ({
  ...envelope(),
  "io.modelcontextprotocol/protocolVersion": version,
});

describe("atlatl-proxy, 2026-07-28: every request is checked", () => {
  it("refuses a later request claiming an unsupported revision with -32022, and serves on", async () => {
    expect((await p.request("tools/list", { _meta: envelope() })).error).toBeUndefined();
    for (const version of ["1900-01-01", "2099-01-01"]) {
      const refused = await p.request("tools/list", { _meta: claiming(version) });
      expect(refused.result).toBeUndefined();
      expect(refused.error).toMatchObject({
        code: -32022,
        data: { requested: version, supported: ["2026-07-28"] },
      });
    }
    const after = await p.request("tools/list", { _meta: envelope() });
    expect(after.result).toMatchObject({ tools: expect.any(Array) });
  });

  it("refuses subscriptions/listen for taskIds without the tasks extension: -32021", async () => {
    const refused = await p.request("subscriptions/listen", {
      notifications: { taskIds: ["t-1"] },
      _meta: envelope(),
    });
    expect(refused.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
    });
  });
});
