/**
 * Adding one server of our own to a client (`atlatl install <client>` adds the
 * memory server) and removing it again, with the same files, formats and
 * backups as the proxy's wrap.
 */
import { isDeepStrictEqual } from "node:util";
import { bytesBeforeInstall, readIfExists } from "./atomic-write.js";
import type { ClientEnv, ClientSpec } from "./clients.js";
import { tableAt } from "./config-format.js";
import type { FilePlan } from "./plan.js";
import { filesOf } from "./plan.js";

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
  return [{ path: file.path, before, after, entries: [{ ...at, action: "added" }], notes: [] }];
}

/** The plan that removes the server again (the bytes from before, when nothing else changed). */
export function planRemoveServer(req: ServerEntryRequest): FilePlan[] {
  const [file] = filesOf(req.client, req.where, req.configPath);
  const before = file ? readIfExists(file.path) : undefined;
  if (!file || before === undefined) return [];
  const restored = bytesBeforeInstall(file.path, before);
  const at = { map: file.primaryMap.join("."), name: req.name };
  if (restored === null) {
    return [
      { path: file.path, before, after: null, entries: [{ ...at, action: "removed" }], notes: [] },
    ];
  }
  const text = restored ?? before;
  const doc = req.client.format.parse(text, file.path);
  const existing = tableAt(doc, file.primaryMap)?.[req.name];
  const entries = restored !== undefined ? [{ ...at, action: "restored" as const }] : [];
  if (existing === undefined || !req.isOurs(existing)) {
    return [{ path: file.path, before, after: text, entries, notes: [] }];
  }
  const after = req.client.format.removeEntry(text, file.primaryMap, req.name);
  return [{ path: file.path, before, after, entries: [{ ...at, action: "removed" }], notes: [] }];
}
