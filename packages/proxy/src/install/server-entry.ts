/**
 * Adding one server of our own to a client (`atlatl install <client>` adds the
 * memory server) and removing it again, with the same files, formats and
 * backups as the proxy's wrap.
 */
import { isDeepStrictEqual } from "node:util";
import { readIfExists } from "./atomic-write.js";
import type { ClientEnv, ClientSpec } from "./clients.js";
import { tableAt } from "./config-format.js";
import type { FilePlan } from "./plan.js";
import { filesOf } from "./plan.js";
import { type InstallRecord, readRecord, restorableBytes, type Tool, textHash } from "./records.js";

/** The command that adds servers this way. */
const TOOL: Tool = "atlatl";

/** A server entry to add: a name and a command line. */
export interface ServerEntryRequest {
  client: ClientSpec;
  where: ClientEnv;
  configPath?: string | undefined;
  name: string;
  command: string;
  args: string[];
  /** True when an existing entry of that name is ours to replace or remove. */
  isOurs(entry: Record<string, unknown>): boolean;
}

/** The plan that adds the server to the client's first file (user scope). */
export function planAddServer(req: ServerEntryRequest): FilePlan[] {
  const [file] = filesOf(req.client, req.where, req.configPath);
  if (!file) return [];
  const before = readIfExists(file.path);
  const text = before ?? req.client.format.empty;
  const doc = req.client.format.parse(text, file.path);
  const existing = tableAt(doc, file.primaryMap)?.[req.name];
  const at = { map: file.primaryMap.join("."), name: req.name };
  if (existing !== undefined && !req.isOurs(existing)) {
    throw new Error(
      `${file.path}: a server named ${JSON.stringify(req.name)} is already configured and is not atlatl's; remove or rename it first`,
    );
  }
  if (
    existing !== undefined &&
    existing.command === req.command &&
    isDeepStrictEqual(existing.args, req.args)
  ) {
    return [
      {
        path: file.path,
        before,
        after: text,
        entries: [{ ...at, action: "unchanged" }],
        notes: [],
      },
    ];
  }
  const after = req.client.format.editEntry(text, file.primaryMap, req.name, {
    ...(req.client.newEntryType ? { type: "stdio" } : {}),
    command: req.command,
    args: req.args,
  });
  // The bytes from before our change: these, unless our entry is in them already.
  const ours =
    existing === undefined
      ? (before ?? null)
      : restorableBytes(readRecord(req.where, file.path, TOOL), text);
  const value: InstallRecord = { path: file.path, after: textHash(after) };
  if (ours !== undefined) value.before = ours;
  return [
    {
      path: file.path,
      before,
      after,
      entries: [{ ...at, action: existing === undefined ? "added" : "updated" }],
      notes: [],
      records: [{ tool: TOOL, value }],
    },
  ];
}

/**
 * The plan that removes the server again: the bytes from before install when
 * the file is exactly what install wrote, else just our entry.
 */
export function planRemoveServer(req: ServerEntryRequest): FilePlan[] {
  const [file] = filesOf(req.client, req.where, req.configPath);
  const before = file ? readIfExists(file.path) : undefined;
  if (!file || before === undefined) return [];
  const at = { map: file.primaryMap.join("."), name: req.name };
  const forget = { tool: TOOL, value: null };
  const restored = restorableBytes(readRecord(req.where, file.path, TOOL), before);
  if (restored !== undefined) {
    const note = "put back the bytes from before `atlatl install` (nothing else had changed)";
    return [
      {
        path: file.path,
        before,
        after: restored,
        entries: [{ ...at, action: "removed" }],
        notes: [note],
        records: [forget],
      },
    ];
  }
  const doc = req.client.format.parse(before, file.path);
  const existing = tableAt(doc, file.primaryMap)?.[req.name];
  if (existing === undefined || !req.isOurs(existing)) {
    return [{ path: file.path, before, after: before, entries: [], notes: [], records: [forget] }];
  }
  const after = req.client.format.removeEntry(before, file.primaryMap, req.name);
  return [
    {
      path: file.path,
      before,
      after,
      entries: [{ ...at, action: "removed" }],
      notes: [],
      records: [forget],
    },
  ];
}
