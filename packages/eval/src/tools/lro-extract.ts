/** `lro_extract`: native extraction through the engine's extractor (no shell). */
import type { NativeExtractor } from "../strategies/lro-descriptor.js";
import { clip, type Tool } from "./types.js";

export function lroExtractTool(extractor: NativeExtractor): Tool {
  return {
    spec: {
      name: "lro_extract",
      description:
        "Query an offloaded JSONL result without a shell: a standard recipe (1-10, with params) or a custom jq filter over the records (the header line is skipped).",
      parameters: {
        type: "object",
        properties: {
          file_path: { type: "string", description: "The descriptor's file path" },
          recipe: { type: "integer", minimum: 1, maximum: 10 },
          query: { type: "string", description: "A jq filter applied to each record" },
          params: { type: "object", description: "Values of the recipe's or query's $variables" },
          slurp: {
            type: "boolean",
            description: "Custom queries: see all records as one array (jq -s)",
          },
          raw: { type: "boolean", description: "Custom queries: print strings raw (jq -r)" },
          limit: { type: "integer", minimum: 1 },
        },
        required: ["file_path"],
      },
    },
    async run(args) {
      const r = await extractor.extract(args as never);
      return { content: clip(r.text === "" ? "(no output)" : r.text), isError: !r.ok };
    },
  };
}
