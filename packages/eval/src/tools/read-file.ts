/**
 * `read_file`: lines of a file in the sample's directory (the Truncation
 * strategy's only way in, and a convenience beside `bash`). At most `limit`
 * lines and {@link MAX_TOOL_OUTPUT_CHARS} characters a call, cut at a line
 * boundary with the offset to continue from.
 */
import { readFile, realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { fail, MAX_TOOL_OUTPUT_CHARS, ok, type Tool } from "./types.js";

const READ_DEFAULT_LINES = 100;
const READ_MAX_LINES = 500;

async function confined(dir: string, path: string): Promise<string | undefined> {
  const root = await realpath(dir);
  const target = await realpath(isAbsolute(path) ? path : resolve(dir, path)).catch(
    () => undefined,
  );
  if (!target) return undefined;
  const rel = relative(root, target);
  return rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)
    ? undefined
    : target;
}

export function readFileTool(dir: string): Tool {
  return {
    spec: {
      name: "read_file",
      description: `Read lines of a file in the working directory: from line \`offset\` (1-based, default 1), at most \`limit\` lines (default ${READ_DEFAULT_LINES}, max ${READ_MAX_LINES}) and ${MAX_TOOL_OUTPUT_CHARS} characters a call.`,
      parameters: {
        type: "object",
        properties: {
          path: {
            type: "string",
            description: "File path (absolute, or relative to the working directory)",
          },
          offset: { type: "integer", minimum: 1 },
          limit: { type: "integer", minimum: 1, maximum: READ_MAX_LINES },
        },
        required: ["path"],
      },
    },
    async run(args) {
      if (typeof args.path !== "string")
        return fail("BAD_ARGUMENTS", 'read_file needs {"path": "<file>"}');
      const offset = args.offset ?? 1;
      const limit = args.limit ?? READ_DEFAULT_LINES;
      if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 1) {
        return fail("BAD_ARGUMENTS", "offset must be an integer >= 1");
      }
      if (
        typeof limit !== "number" ||
        !Number.isInteger(limit) ||
        limit < 1 ||
        limit > READ_MAX_LINES
      ) {
        return fail("BAD_ARGUMENTS", `limit must be an integer from 1 to ${READ_MAX_LINES}`);
      }
      const target = await confined(dir, args.path);
      if (!target) return fail("NOT_FOUND", `no such file in the working directory: ${args.path}`);
      const text = await readFile(target, "utf8").catch(() => undefined);
      if (text === undefined) return fail("NOT_FOUND", `cannot read ${args.path}`);
      const lines = text.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      if (offset > lines.length) return ok(`(end of file: ${lines.length} lines)`);
      let out = "";
      let n = 0;
      for (const line of lines.slice(offset - 1, offset - 1 + limit)) {
        if (out.length + line.length + 1 > MAX_TOOL_OUTPUT_CHARS && n > 0) break;
        out += `${line}\n`;
        n++;
      }
      const next = offset + n;
      if (next <= lines.length) {
        out += `[${lines.length - next + 1} more lines; continue with offset=${next}]\n`;
      }
      return ok(out);
    },
  };
}
