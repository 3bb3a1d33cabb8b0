import { basename, dirname, isAbsolute } from "node:path";
import { OFFLOAD_FILE_PATTERN } from "@atlatl/lro";
import type { ToolMiddleware } from "./tool-middleware.js";

/**
 * For a server confined to one principal's directory (HTTP), `lro_extract`'s
 * middleware: an offload file path in another directory is looked up by its
 * name in `ownDir`, so it gets exactly the answer of a file that does not exist
 * here (`FILE_NOT_FOUND`, or `FILE_EXPIRED` past its time to live), never
 * "refused": a client learns nothing about other principals' files. Handles
 * (a file name, an `atlatl://offload/` URI) already resolve in `ownDir`;
 * everything else goes to `lro_extract` unchanged (its own confinement applies).
 */
export function foreignFilesNotFound(ownDir: string): ToolMiddleware {
  return (next) =>
    (args: { file_path?: unknown }, ...rest) => {
      const path = args?.file_path;
      if (
        typeof path === "string" &&
        isAbsolute(path) &&
        OFFLOAD_FILE_PATTERN.test(basename(path)) &&
        dirname(path) !== ownDir
      ) {
        return next({ ...args, file_path: basename(path) }, ...rest);
      }
      return next(args, ...rest);
    };
}
