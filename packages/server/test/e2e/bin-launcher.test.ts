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
