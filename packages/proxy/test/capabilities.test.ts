/**
 * The capabilities the proxy passes on: the upstream's to the client (without
 * tasks of either generation, with its tool and, unless the client goes without
 * them, its resources; subscriptions only when both sides speak 2025), and the client's to the upstream (without
 * tasks, with the atlatl/proxy capability): end to end through a 2026-07-28
 * upstream, and the rule itself.
 */
import { afterAll, describe, expect, it } from "vitest";
import { servedCapabilities } from "../src/proxy/downstream-server.js";
import { withoutTasks } from "../src/proxy/no-tasks.js";
import { MODERN, proxied2, tempDir } from "./helpers.js";

const out = tempDir("atlatl-proxy-caps-");
afterAll(() => out.remove());

const TASKS = "io.modelcontextprotocol/tasks";

describe("capabilities through the proxy", () => {
  it("a 2026 client's tasks extension does not reach the upstream; its other capabilities do", async () => {
    const p = await proxied2([MODERN], ["--output-dir", out.dir], { pin: "2026-07-28" }, (c) => {
      c.registerCapabilities({ extensions: { [TASKS]: {}, "acme/other": { x: 1 } } } as never);
    });
    try {
      const r = await p.client.callTool({ name: "era", arguments: {} });
      const caps = JSON.parse((r.content as { text: string }[])[0]?.text as string).capabilities;
      expect(caps.extensions).toEqual({ "acme/other": { x: 1 }, "atlatl/proxy": {} });
      expect(caps.experimental).toEqual({ "atlatl/proxy": {} });
      expect(caps.sampling).toEqual({});
    } finally {
      await p.close();
    }
  });

  it("serves the upstream's capabilities without tasks, subscriptions only 2025 to 2025", () => {
    const upstream = {
      tools: { listChanged: true },
      resources: { subscribe: true },
      tasks: { list: {} },
      extensions: { [TASKS]: {}, "acme/other": {} },
      logging: {},
    };
    expect(servedCapabilities(upstream, "legacy", "legacy")).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      extensions: { "acme/other": {} },
      logging: {},
    });
    for (const [era, upstreamEra] of [
      ["modern", "legacy"],
      ["legacy", "modern"],
      ["modern", "modern"],
    ] as const) {
      expect(servedCapabilities(upstream, era, upstreamEra).resources).toEqual({
        listChanged: true,
      });
    }
    expect(withoutTasks({ sampling: {} })).toEqual({ sampling: {} });
  });

  it("without offload resources: the upstream's resources as the rule leaves them, or none", () => {
    const upstream = { tools: {}, resources: { subscribe: true } };
    expect(servedCapabilities(upstream, "legacy", "legacy", false).resources).toEqual({
      subscribe: true,
    });
    expect(servedCapabilities(upstream, "modern", "legacy", false).resources).toEqual({});
    expect(servedCapabilities({ logging: {} }, "legacy", "legacy", false)).toEqual({
      logging: {},
      tools: {},
    });
  });
});
