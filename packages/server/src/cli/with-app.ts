import type { Command } from "commander";
import { type App, openApp } from "../app/open-app.js";
import { globalOverrides } from "./global-options.js";

/**
 * Open the app for one CLI command, run `fn`, and always close the store.
 * Commands that write (import, seed) pass `create: true`; reads fail on a
 * missing SQLite database instead of creating an empty one.
 */
export async function withApp<T>(
  cmd: Command,
  fn: (app: App) => Promise<T>,
  options: { create?: boolean } = {},
): Promise<T> {
  const app = await openApp({
    ...globalOverrides(cmd),
    logEvents: false,
    createStore: options.create ?? false,
  });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
