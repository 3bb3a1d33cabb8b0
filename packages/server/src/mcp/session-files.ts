import { basename, dirname, isAbsolute } from "node:path";
import { OFFLOAD_FILE_PATTERN } from "@atlatl/lro";
import type { RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * For a session-scoped server: an offload file path outside this session's
 * directory is answered "not found" (as if it did not exist), never "refused",
 * so a client learns nothing about other sessions' files. Everything else goes
 * to `lro_extract` unchanged (its own confinement still applies).
 */
export function foreignFilesNotFound(tool: RegisteredTool, sessionDir: string): void {
  const inner = tool.handler as (args: { file_path?: unknown }, extra: unknown) => unknown;
  const notFound = (name: string): CallToolResult => ({
    isError: true,
    content: [
      {
        type: "text",
        text:
          `FILE_NOT_FOUND: ${name} is not an offload file of this session. Use the file_path ` +
          "of a descriptor returned in this session, or re-run the query.",
      },
    ],
  });
  tool.handler = ((args: { file_path?: unknown }, extra: unknown) => {
    const path = args?.file_path;
    if (
      typeof path === "string" &&
      isAbsolute(path) &&
      OFFLOAD_FILE_PATTERN.test(basename(path)) &&
      dirname(path) !== sessionDir
    ) {
      return notFound(basename(path));
    }
    return inner(args, extra);
  }) as RegisteredTool["handler"];
}
