/**
 * atlatl's first tool_result in each offloaded `token-economy` scenario, as
 * Claude Code and Codex put it into the model's context, without running
 * either CLI: the scenario's "with atlatl" server over stdio, called by the
 * SDK's Client under each CLI's `clientInfo.name` (the server and the proxy
 * decide per client), the content rendered as each CLI renders it (seen in the
 * bench's request logs). Deterministic: shown as the engine's descriptor
 * samples are (`normalizer`: the offload directory as `/tmp/atlatl-1000`, a
 * Linux user's default `$TMPDIR/atlatl-<uid>`, and each ULID a fixed one of
 * median o200k length), so the sizes do not move from run to run.
 * Read by `npm run bench descriptor-tokens` and its budget test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { normalizer } from "../../lro/test/fixtures/descriptor-samples.js";
import { offloadsFor, SCENARIOS, type Scenario } from "./token-economy.js";
import { o200k } from "./token-economy-model.js";

/** A CLI whose rendering of a tool result is reproduced. */
interface RenderingClient {
  id: "claude-code" | "codex";
  /** The `clientInfo.name` it sends at `initialize`. */
  clientInfoName: string;
  /** The text its model receives for a tool result's content blocks. */
  render(content: ContentBlock[]): string;
}

type ContentBlock = { type: string; text?: string; [key: string]: unknown };

/** The two CLIs of the `token-economy` benchmark. */
const RENDERING_CLIENTS: readonly RenderingClient[] = [
  {
    id: "claude-code",
    clientInfoName: "claude-code",
    // Text as it is; a resource link as a line naming it.
    render: (content) =>
      content
        .map((b) =>
          b.type === "text"
            ? (b.text ?? "")
            : b.type === "resource_link"
              ? `[Resource link: ${String(b.name)}] ${String(b.uri)} (${String(b.description)})`
              : JSON.stringify(b),
        )
        .join("\n"),
  },
  {
    id: "codex",
    clientInfoName: "codex-mcp-client",
    // Its metadata lines, then text as it is and other blocks as JSON.
    render: (content) =>
      `Wall time: 0.0820 seconds\nOutput:\n${content
        .map((b) => (b.type === "text" ? (b.text ?? "") : JSON.stringify(b)))
        .join("\n")}`,
  },
];

/** One scenario's first tool_result with atlatl, as one CLI's model receives it. */
export interface ScenarioDescriptor {
  scenario: string;
  client: RenderingClient["id"];
  /** The text the model receives (directory and ULIDs shown as above). */
  text: string;
  o200k: number;
  /** The specification's estimate: ceil(chars / 4). */
  chars4: number;
  /** The bound for this scenario (o200k). */
  max: number;
}

async function firstResult(
  s: Scenario,
  dir: string,
  offloadDir: string,
  client: RenderingClient,
): Promise<ContentBlock[]> {
  const { command, args, env } = s.server("atlatl", dir, client.id, offloadDir);
  const c = new Client({ name: client.clientInfoName, version: "1.0.0" });
  await c.connect(
    new StdioClientTransport({
      command,
      args,
      cwd: dir,
      env: { ...env, PATH: process.env.PATH ?? "" },
      stderr: "ignore",
    }),
  );
  try {
    const r = await c.callTool({ name: s.tool, arguments: s.input(dir) });
    return r.content as ContentBlock[];
  } finally {
    await c.close();
  }
}

/** Every offloaded scenario's descriptor, for each CLI. */
export async function scenarioDescriptors(): Promise<ScenarioDescriptor[]> {
  const out: ScenarioDescriptor[] = [];
  for (const s of SCENARIOS) {
    if (s.descriptorMax === undefined) continue;
    const dir = mkdtempSync(join(tmpdir(), "atlatl-descriptors-"));
    try {
      s.prepare?.(dir);
      const offloadDir = join(dir, "offload");
      for (const client of RENDERING_CLIENTS) {
        // A result the client's threshold keeps inline has no descriptor.
        if (s.resultText && !(await offloadsFor(client.id, s.resultText()))) continue;
        const text = normalizer(offloadDir)(
          client.render(await firstResult(s, dir, offloadDir, client)),
        );
        out.push({
          scenario: s.name,
          client: client.id,
          text,
          o200k: o200k(text),
          chars4: Math.ceil(text.length / 4),
          max: s.descriptorMax,
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}
