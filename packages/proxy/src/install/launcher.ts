/**
 * The command lines written into client configs: absolute in a user's own
 * files, so they work from any directory; by name in a project's shared file.
 */
import { fileURLToPath } from "node:url";
import type { ProxyLauncher } from "./wrap-rule.js";

/**
 * This package's `atlatl-proxy` bin, started by the node running now. Clients
 * start servers without the user's shell PATH (a desktop app has none of
 * nvm's), so neither `node` nor the bin is looked up there.
 */
export function proxyLauncher(): ProxyLauncher {
  // src/install and dist/install both sit two levels below the package root.
  const bin = fileURLToPath(new URL("../../bin/atlatl-proxy.js", import.meta.url));
  return { command: process.execPath, args: [bin] };
}

/**
 * `atlatl-proxy` from PATH: for a project's file (usually committed), which must
 * work on every machine that checks it out, not just this one.
 */
export function portableLauncher(): ProxyLauncher {
  return { command: "atlatl-proxy", args: [] };
}
