/**
 * The Node.js version the README and `engines` promise is enough for the whole
 * workspace: every package `npm ci` installs (optional platform builds aside,
 * which npm skips) accepts the lowest version of the root's `engines.node`, so
 * `npm install` on it prints no EBADENGINE warning.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

interface LockEntry {
  engines?: { node?: string } | string[];
  optional?: boolean;
}

describe("engines", () => {
  it("every installed package accepts the lowest Node.js version the workspace promises", () => {
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    const lowest = semver.minVersion(manifest.engines.node as string)?.version;
    expect(lowest).toBe("20.19.0");
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
      packages: Record<string, LockEntry>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([, p]) => !p.optional && !Array.isArray(p.engines) && p.engines?.node)
      .filter(([, p]) => !semver.satisfies(lowest as string, (p.engines as { node: string }).node))
      .map(([path, p]) => `${path} (node ${(p.engines as { node: string }).node})`);
    expect(refusing).toEqual([]);
  });
});
