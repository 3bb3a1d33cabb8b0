import type { Command } from "commander";
import { type App, openApp } from "../app/open-app.js";
import { globalOverrides } from "./global-options.js";

/**
 * Open the app for one CLI command, run `fn`, and always close the store.
 * Reads open the store read-only: a missing SQLite database fails instead of
 * being created, and nothing is migrated; commands that write (import, seed)
 * use {@link withWritableApp}.
 */
export async function withApp<T>(
  cmd: Command,
  fn: (app: App) => Promise<T>,
  options: { write?: boolean } = {},
): Promise<T> {
  const app = await openApp({
    ...globalOverrides(cmd),
    logEvents: false,
    readOnlyStore: options.write !== true,
  });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}

/** {@link withApp} for commands that write: a missing SQLite database is created, the schema migrated. */
export function withWritableApp<T>(cmd: Command, fn: (app: App) => Promise<T>): Promise<T> {
  return withApp(cmd, fn, { write: true });
}
