/**
 * A tool whose results may be offloaded cannot declare an `outputSchema`: the
 * descriptor that replaces an offloaded result has no `structuredContent` of
 * that shape, and MCP requires a declared schema's structured results to
 * conform (an `McpServer` refuses the result; clients such as the SDK's
 * `Client.callTool` reject it). Such a tool is listed without `outputSchema`;
 * the schema moves to `_meta["{metaPrefix}outputSchema"]` (as JSON Schema),
 * so nothing is lost, and the tool's own `structuredContent` is still checked
 * against it before anything is judged or written.
 */
import { z } from "zod";
import type { McpMeta } from "../../protocol/mcp-types.js";
import { type McpNames, mcpNames } from "../../protocol/offload-resource-uri.js";

/** The `_meta` key a moved output schema is kept under (`atlatl/outputSchema` by default). */
export function outputSchemaMetaKey(names?: Partial<McpNames>): string {
  return `${mcpNames(names).metaPrefix}outputSchema`;
}

/**
 * A JSON Schema tool definition (a low-level server's listing, a proxy's) as
 * listed when its results may be offloaded: its `outputSchema` moved to `_meta`.
 */
export function withoutOutputSchema<T extends { outputSchema?: unknown; _meta?: McpMeta }>(
  tool: T,
  names?: Partial<McpNames>,
): Omit<T, "outputSchema"> {
  if (tool.outputSchema === undefined) return tool;
  const { outputSchema, ...rest } = tool;
  return { ...rest, _meta: { ...(tool._meta ?? {}), [outputSchemaMetaKey(names)]: outputSchema } };
}

/** The parts of a Standard Schema (standardschema.dev) an output schema is used through. */
interface StandardSchema {
  "~standard": {
    validate(value: unknown): StandardResult | Promise<StandardResult>;
    /** Standard JSON Schema (zod ≥ 4.2 and others). */
    jsonSchema?: { output(options: { target: string }): Record<string, unknown> };
  };
}

type StandardResult = {
  issues?:
    | readonly { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] }[]
    | undefined;
};

function isStandard(value: unknown): value is StandardSchema {
  const std = (value as { "~standard"?: { validate?: unknown } } | null)?.["~standard"];
  return typeof std?.validate === "function";
}

/**
 * An `McpServer` output schema (a Standard Schema such as a zod object, or a
 * raw shape of zod schemas, as both SDK lines accept) as a Standard Schema,
 * or undefined when it is neither.
 */
function standardOf(schema: unknown): StandardSchema | undefined {
  if (isStandard(schema)) return schema;
  if (typeof schema !== "object" || schema === null) return undefined;
  const fields = Object.values(schema);
  if (!fields.every((f) => typeof f === "object" && f !== null && "_zod" in f)) return undefined;
  return z.object(schema as z.ZodRawShape);
}

/** A tool's output schema as the `McpServer` registration of an offloadable tool keeps it. */
interface MovedOutputSchema {
  /** The JSON Schema for `_meta`, when the schema can say it. */
  json: Record<string, unknown> | undefined;
  /**
   * Why `structuredContent` does not conform (the SDK's wording), or
   * undefined when it does (or the schema cannot check).
   */
  mismatch(toolName: string, structuredContent: unknown): Promise<string | undefined>;
}

/** Read `schema` (see {@link standardOf}) as {@link MovedOutputSchema}. */
export function moveOutputSchema(schema: unknown): MovedOutputSchema {
  const std = standardOf(schema);
  let json: Record<string, unknown> | undefined;
  try {
    json = std?.["~standard"].jsonSchema?.output({ target: "draft-2020-12" });
  } catch {
    json = undefined; // not expressible as JSON Schema: kept out of `_meta`
  }
  return {
    json,
    async mismatch(toolName, structuredContent) {
      if (structuredContent === undefined) {
        return `Tool ${toolName} has an output schema but no structured content was provided`;
      }
      if (!std) return undefined;
      const { issues } = await std["~standard"].validate(structuredContent);
      if (!issues || issues.length === 0) return undefined;
      const detail = issues
        .map((i) => {
          const at = (i.path ?? []).map((p) => String(typeof p === "object" ? p.key : p));
          return at.length > 0 ? `${at.join(".")}: ${i.message}` : i.message;
        })
        .join("; ");
      return `Invalid structured content for tool ${toolName}: ${detail}`;
    },
  };
}
