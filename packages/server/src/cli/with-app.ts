import type { Command } from "commander";
import { type App, openApp } from "../app/open-app.js";
import { globalOverrides } from "./global-options.js";

/** Open the app for one CLI command, run `fn`, and always close the store. */
export async function withApp<T>(cmd: Command, fn: (app: App) => Promise<T>): Promise<T> {
  const app = await openApp({ ...globalOverrides(cmd), logEvents: false });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
