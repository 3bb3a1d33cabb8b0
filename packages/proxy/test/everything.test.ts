/**
 * The proxy in front of the reference `@modelcontextprotocol/server-everything`
 * (installed from npm), compared with a direct connection to the same server.
 */
import { readFileSync } from "node:fs";
import { reassembleResult } from "@atlatl/lro/mcp";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OUTPUT_SCHEMA_META_KEY } from "../src/proxy/output-schema.js";
import { direct, EVERYTHING, type Peer, proxied, tempDir } from "./helpers.js";
import { runAllRecipes } from "./recipes.js";

const out = tempDir("atlatl-proxy-everything-");
let d: Peer;
let p: Peer;
const sampled: string[] = [];

function answerServerRequests(peer: Peer["client"]) {
  peer.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    const first = req.params.messages[0]?.content;
    sampled.push(first && "text" in first ? String(first.text) : "");
    return {
      role: "assistant",
      content: { type: "text", text: "sampled answer 42" },
      model: "test-model",
      stopReason: "endTurn",
    };
  });
  peer.setRequestHandler(ElicitRequestSchema, async () => ({
    action: "accept",
    content: { name: "Ada Lovelace", check: true },
  }));
}

beforeAll(async () => {
  [d, p] = await Promise.all([
    direct([EVERYTHING, "stdio"], answerServerRequests),
    proxied([EVERYTHING, "stdio"], ["--output-dir", out.dir], answerServerRequests),
  ]);
});
afterAll(async () => {
  await Promise.all([d?.close(), p?.close()]);
  out.remove();
});

/** A proxied tool listing as it was upstream: the moved output schema put back. */
function restoreOutputSchema(t: Tool): Tool {
  const meta = t._meta as Record<string, unknown> | undefined;
  if (!meta || !(OUTPUT_SCHEMA_META_KEY in meta)) return t;
  const { [OUTPUT_SCHEMA_META_KEY]: outputSchema, ...rest } = meta;
  const { _meta: _m, ...tool } = t;
  return {
    ...tool,
    outputSchema: outputSchema as Tool["outputSchema"],
    ...(Object.keys(rest).length ? { _meta: rest } : {}),
  };
}

describe("atlatl-proxy in front of server-everything", () => {
  it("answers initialize with the upstream's serverInfo, instructions and capabilities", () => {
    expect(p.client.getServerVersion()).toEqual(d.client.getServerVersion());
    expect(p.client.getInstructions()).toEqual(d.client.getInstructions());
    const dc = d.client.getServerCapabilities() ?? {};
    const pc = p.client.getServerCapabilities() ?? {};
    expect(pc.tools).toEqual(dc.tools);
    expect(pc.prompts).toEqual(dc.prompts);
    expect(pc.logging).toEqual(dc.logging);
    expect(pc.completions).toEqual(dc.completions);
    expect(pc.resources).toEqual({ ...dc.resources, listChanged: true });
  });

  it("lists every tool, prompt, resource and template the same, plus lro_extract and the offload template", async () => {
    const [dt, pt] = await Promise.all([d.client.listTools(), p.client.listTools()]);
    const extract = pt.tools.at(-1) as Tool;
    expect(extract.name).toBe("lro_extract");
    expect(extract.inputSchema.properties).toHaveProperty("file_path");
    expect(pt.tools.slice(0, -1).map(restoreOutputSchema)).toEqual(dt.tools);
    // Tools with an output schema are listed without it (an offloaded result cannot match it).
    const structured = pt.tools.find((t) => t.name === "get-structured-content") as Tool;
    expect(structured.outputSchema).toBeUndefined();
    expect(structured._meta?.[OUTPUT_SCHEMA_META_KEY]).toBeDefined();

    expect(await p.client.listPrompts()).toEqual(await d.client.listPrompts());
    const [dr, pr] = await Promise.all([d.client.listResources(), p.client.listResources()]);
    expect(pr.resources.slice(0, dr.resources.length)).toEqual(dr.resources);
    expect(pr.nextCursor).toEqual(dr.nextCursor);
    const [dtp, ptp] = await Promise.all([
      d.client.listResourceTemplates(),
      p.client.listResourceTemplates(),
    ]);
    expect(ptp.resourceTemplates.slice(0, -1)).toEqual(dtp.resourceTemplates);
    expect(ptp.resourceTemplates.at(-1)?.uriTemplate).toBe("atlatl://offload/{name}");
  });

  it("passes small results through byte-identical (content, structuredContent, isError, _meta)", async () => {
    const calls: { name: string; arguments?: Record<string, unknown> }[] = [
      { name: "echo", arguments: { message: "hello through the proxy" } },
      { name: "get-sum", arguments: { a: 2, b: 40 } },
      { name: "get-structured-content", arguments: { location: "New York" } },
      { name: "get-annotated-message", arguments: { messageType: "error", includeImage: true } },
      { name: "get-resource-links", arguments: { count: 3 } },
      { name: "get-resource-reference", arguments: { resourceType: "Text", resourceId: 2 } },
      { name: "get-tiny-image", arguments: {} },
      { name: "no-such-tool", arguments: {} },
      { name: "get-sum", arguments: { a: "not a number" } },
    ];
    for (const call of calls) {
      const [a, b] = await Promise.all([
        d.client.callTool(call).catch((e: Error) => ({ thrown: e.message })),
        p.client.callTool(call).catch((e: Error) => ({ thrown: e.message })),
      ]);
      expect(JSON.stringify(b), call.name).toBe(JSON.stringify(a));
    }
  });

  it("passes prompts, resource reads, subscriptions and completions through unchanged", async () => {
    const get = { name: "args-prompt", arguments: { city: "Paris", state: "TX" } };
    expect(await p.client.getPrompt(get)).toEqual(await d.client.getPrompt(get));
    const { resources } = await d.client.listResources();
    const uri = (resources[0] as { uri: string }).uri;
    expect(await p.client.readResource({ uri })).toEqual(await d.client.readResource({ uri }));
    const complete = {
      ref: { type: "ref/prompt" as const, name: "completable-prompt" },
      argument: { name: "department", value: "E" },
    };
    expect(await p.client.complete(complete)).toEqual(await d.client.complete(complete));
    const bad = await p.client
      .readResource({ uri: "demo://nope/1" })
      .catch((e: Error) => e.message);
    const badDirect = await d.client
      .readResource({ uri: "demo://nope/1" })
      .catch((e: Error) => e.message);
    expect(bad).toBe(badDirect);
    // Subscriptions go to the upstream (it declares resources.subscribe).
    expect(await p.client.subscribeResource({ uri })).toEqual(
      await d.client.subscribeResource({ uri }),
    );
    expect(await p.client.unsubscribeResource({ uri })).toEqual(
      await d.client.unsubscribeResource({ uri }),
    );
  });

  it("forwards sampling from the upstream to the client and its answer back", async () => {
    const r = await p.client.callTool({
      name: "trigger-sampling-request",
      arguments: { prompt: "What is 6 x 7?", maxTokens: 20 },
    });
    expect(sampled.some((s) => s.includes("What is 6 x 7?"))).toBe(true);
    expect(JSON.stringify(r.content)).toContain("sampled answer 42");
  });

  it("forwards elicitation from the upstream to the client and its answer back", async () => {
    const r = await p.client.callTool({ name: "trigger-elicitation-request", arguments: {} });
    expect(JSON.stringify(r.content)).toContain("Ada Lovelace");
  });

  it("forwards progress notifications of a long-running call", async () => {
    const progress: number[] = [];
    const r = await p.client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 0.5, steps: 5 } },
      undefined,
      { onprogress: (n) => progress.push(n.progress) },
    );
    // The SDK client drops a progress notification that arrives in the same read
    // as its response (directly too), so the last one may be missing here.
    expect(progress.slice(0, 4)).toEqual([1, 2, 3, 4]);
    expect(JSON.stringify(r.content)).toContain("Long running operation completed");
  });

  it("offloads a long output losslessly: files, recipes in bash + jq, lro_extract, resources", async () => {
    const message = Array.from({ length: 3000 }, (_, i) => `line ${i} of a long echo`).join("\n");
    const call = { name: "echo", arguments: { message } };
    const [a, b] = await Promise.all([d.client.callTool(call), p.client.callTool(call)]);
    const text = (b.content as { type: string; text: string }[])[0]?.text as string;
    const descriptor = JSON.parse(text);
    expect(descriptor.offloaded).toBe(true);
    expect(descriptor.tool).toBe("echo");
    expect(Object.keys(descriptor.files)).toEqual(["text"]);
    expect(descriptor.guidance).toContain("lro_extract");

    const back = await reassembleResult(descriptor);
    expect(back.content).toEqual(a.content);

    const outputs = await runAllRecipes(descriptor.jq_recipes, "line 2999 ", descriptor.guidance);
    expect(outputs.read_text).toBe(`${(a.content as { text: string }[])[0]?.text}\n`);
    expect(descriptor.summary.text.count).toBe(3000);
    expect(outputs.text_lines_1_to_100?.split("\n")[99]).toBe("100: line 99 of a long echo");
    expect(outputs.grep_text).toBe("0:3000: line 2999 of a long echo\n");

    const extracted = await p.client.callTool({
      name: "lro_extract",
      arguments: {
        file_path: descriptor.files.text,
        query: "select(.line == 2) | .text",
        raw: true,
      },
    });
    expect((extracted.content as { text: string }[])[0]?.text).toBe("line 1 of a long echo\n");

    const { resources } = await p.client.listResources();
    const mine = resources.find((r) => r.uri.startsWith("atlatl://offload/"));
    expect(mine).toBeDefined();
    const read = await p.client.readResource({ uri: mine?.uri as string });
    expect((read.contents[0] as { text: string }).text).toBe(
      readFileSync(descriptor.files.text, "utf8"),
    );
  });
});
