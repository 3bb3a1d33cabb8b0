import { basename, dirname, isAbsolute } from "node:path";
import { OFFLOAD_FILE_PATTERN } from "@atlatl/lro";
import type { ToolMiddleware } from "./tool-middleware.js";
import { toolError } from "./tools/json-result.js";

/**
 * For a session-scoped server, `lro_extract`'s middleware: an offload file path
 * outside this session's directory is answered "not found" (as if it did not
 * exist), never "refused", so a client learns nothing about other sessions'
 * files. Everything else goes to `lro_extract` unchanged (its own confinement
 * still applies).
 */
export function foreignFilesNotFound(sessionDir: string): ToolMiddleware {
  return (next) =>
    (args: { file_path?: unknown }, ...rest) => {
      const path = args?.file_path;
      if (
        typeof path === "string" &&
        isAbsolute(path) &&
        OFFLOAD_FILE_PATTERN.test(basename(path)) &&
        dirname(path) !== sessionDir
      ) {
        return toolError({
          code: "FILE_NOT_FOUND",
          field: "file_path",
          message:
            `${basename(path)} is not an offload file of this session. Use the file_path ` +
            "of a descriptor returned in this session, or re-run the query.",
        });
      }
      return next(args, ...rest);
    };
}
