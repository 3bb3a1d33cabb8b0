/**
 * How both installers (`atlatl install`, `atlatl-proxy install`, the built bins)
 * write a config file, against a hostile or unusual file system:
 *
 * - in a folder another user can write, that user plants a symlink at the name
 *   the temporary file would have had (`.<file>.atlatl-<pid>.tmp`, the pid known
 *   exactly: the planting shell execs the installer); the victim is a non-root
 *   user (`nobody`, through setpriv), so the kernel's root privileges hide nothing;
 * - a config owned by another user keeps its owner and mode when root edits it;
 * - a config that is a symlink (dotfiles) stays a link; its target gets the edit.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { binPath } from "../e2e/spawn-server.js";

const PROXY_BIN = join(
  dirname(createRequire(import.meta.url).resolve("atlatl-proxy")),
  "..",
  "bin",
  "atlatl-proxy.js",
);

/** The two installers, each with the flag naming a config file in cursor's format. */
const INSTALLERS = [
  { name: "atlatl install", bin: binPath, configFlag: "--client-config" },
  { name: "atlatl-proxy install", bin: PROXY_BIN, configFlag: "--config" },
] as const;

const VICTIM = 65534; // nobody
const ATTACKER = 12345;
const isRoot = process.getuid?.() === 0;

const root = mkdtempSync(join(tmpdir(), "atlatl-install-write-"));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SECRET = "s3cret-token-value";
const CONFIG = `{
  "mcpServers": {
    "db": { "command": "db-mcp", "args": ["--ro"], "env": { "DB_PASSWORD": "${SECRET}" } }
  }
}
`;

function asUser(uid: number): string[] {
  return ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"];
}

/** A HOME of its own for `uid`. */
function homeOf(uid: number, name: string): string {
  const home = join(root, name);
  mkdirSync(home, { mode: 0o700 });
  chownSync(home, uid, uid);
  return home;
}

// Switching users needs root; CI runs as root, so there the test must run.
describe.skipIf(!isRoot && !process.env.CI)("the installers' writes", () => {
  it("run as root (to act as two other users)", () => {
    expect(isRoot, "this test switches users with setpriv: run it as root").toBe(true);
  });

  for (const installer of INSTALLERS) {
    it(`${installer.name} as a non-root user: a symlink planted at the temporary file's name gets nothing`, () => {
      const slug = installer.name.replace(/\W+/g, "-");
      const shared = join(root, `shared-${slug}`);
      mkdirSync(shared);
      chmodSync(shared, 0o777); // a project folder both users may write
      const config = join(shared, "mcp.json");
      writeFileSync(config, CONFIG, { mode: 0o600 });
      chownSync(config, VICTIM, VICTIM);
      const loot = join(shared, "loot");
      writeFileSync(loot, "", { mode: 0o666 });
      chownSync(loot, ATTACKER, ATTACKER);
      chmodSync(loot, 0o666);
      const home = homeOf(VICTIM, `home-${slug}`);

      // The attacker links `.mcp.json.atlatl-$$.tmp` to its file, then the same
      // process (same pid) becomes the victim's installer.
      const script = `${asUser(ATTACKER).join(" ")} ln -s "$1" "$2.atlatl-$$.tmp" || exit 9; shift 2; exec "$@"`;
      const r = spawnSync(
        "sh",
        [
          "-c",
          script,
          "sh",
          loot,
          join(shared, ".mcp.json"),
          ...asUser(VICTIM),
          process.execPath,
          installer.bin,
          "install",
          "cursor",
          installer.configFlag,
          config,
        ],
        { cwd: home, env: { PATH: process.env.PATH ?? "", HOME: home }, encoding: "utf8" },
      );
      expect(r.status, r.stderr).toBe(0);
      expect(readFileSync(loot, "utf8")).toBe("");
      expect(statSync(loot).mode & 0o777).toBe(0o666);
      const after = lstatSync(config);
      expect(after.isFile()).toBe(true);
      expect({ uid: after.uid, mode: after.mode & 0o777 }).toEqual({ uid: VICTIM, mode: 0o600 });
      expect(readFileSync(config, "utf8")).toContain(SECRET);
      expect(readFileSync(config, "utf8")).not.toBe(CONFIG);
      // Only the planted link is left of temporary names.
      const temps = readdirSync(shared).filter((n) => n.endsWith(".tmp"));
      expect(temps).toHaveLength(1);
      expect(lstatSync(join(shared, temps[0] as string)).isSymbolicLink()).toBe(true);
    });
  }

  it("root editing another user's config keeps its owner, group and mode", () => {
    const dir = homeOf(ATTACKER, "owned");
    const config = join(dir, "mcp.json");
    writeFileSync(config, CONFIG);
    chownSync(config, ATTACKER, ATTACKER);
    chmodSync(config, 0o640);
    for (const installer of INSTALLERS) {
      const r = spawnSync(
        process.execPath,
        [installer.bin, "install", "cursor", installer.configFlag, config],
        { cwd: dir, env: { PATH: process.env.PATH ?? "", HOME: dir }, encoding: "utf8" },
      );
      expect(r.status, r.stderr).toBe(0);
      const st = statSync(config);
      expect({ uid: st.uid, gid: st.gid, mode: st.mode & 0o777 }).toEqual({
        uid: ATTACKER,
        gid: ATTACKER,
        mode: 0o640,
      });
    }
  });
});

describe("a config that is a symlink (dotfiles)", () => {
  for (const installer of INSTALLERS) {
    it(`${installer.name} writes through the link; uninstall restores the target`, () => {
      const home = mkdtempSync(join(root, "dotfiles-"));
      const dotfiles = join(home, "dotfiles", "cursor");
      mkdirSync(dotfiles, { recursive: true });
      const target = join(dotfiles, "mcp.json");
      writeFileSync(target, CONFIG, { mode: 0o640 });
      chmodSync(target, 0o640);
      mkdirSync(join(home, ".cursor"));
      const link = join(home, ".cursor", "mcp.json");
      symlinkSync("../dotfiles/cursor/mcp.json", link);
      const run = (action: string) =>
        spawnSync(process.execPath, [installer.bin, action, "cursor"], {
          cwd: home,
          env: { PATH: process.env.PATH ?? "", HOME: home },
          encoding: "utf8",
        });

      const installed = run("install");
      expect(installed.status, installed.stderr).toBe(0);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readlinkSync(link)).toBe("../dotfiles/cursor/mcp.json");
      const text = readFileSync(target, "utf8");
      expect(text).not.toBe(CONFIG);
      expect(text).toContain(installer.bin.endsWith("atlatl.js") ? '"atlatl"' : "atlatl-proxy");
      expect(statSync(target).mode & 0o777).toBe(0o640);
      // Nothing but the target was written in its folder.
      expect(readdirSync(dotfiles)).toEqual(["mcp.json"]);

      const removed = run("uninstall");
      expect(removed.status, removed.stderr).toBe(0);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readFileSync(target, "utf8")).toBe(CONFIG);
    });
  }

  it("a link to a missing file is refused with a message, and nothing is written", () => {
    const home = mkdtempSync(join(root, "dangling-"));
    mkdirSync(join(home, ".cursor"));
    const link = join(home, ".cursor", "mcp.json");
    symlinkSync("../dotfiles/missing.json", link);
    for (const installer of INSTALLERS) {
      const r = spawnSync(process.execPath, [installer.bin, "install", "cursor"], {
        cwd: home,
        env: { PATH: process.env.PATH ?? "", HOME: home },
        encoding: "utf8",
      });
      if (installer.name === "atlatl-proxy install") {
        // Nothing to wrap in a file that is not there.
        expect(r.status, r.stderr).toBe(0);
      } else {
        expect(r.status).toBe(1);
        expect(r.stderr).toContain("is a symbolic link to a file that does not exist");
      }
      expect(readdirSync(join(home, ".cursor"))).toEqual(["mcp.json"]);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
    }
  });
});
