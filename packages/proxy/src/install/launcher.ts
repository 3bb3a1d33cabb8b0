/** The command lines written into client configs: absolute, so they work from any directory. */
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
