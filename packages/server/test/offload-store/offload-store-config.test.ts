/** `[offload_store]`: local by default; postgres only beside a PostgreSQL memory store; quota in bytes. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/server-config.js";

const dir = mkdtempSync(join(tmpdir(), "atlatl-offload-store-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const PG = "postgres://u@db.example:5432/atlatl";

describe("[offload_store]", () => {
  it("defaults to the local file system with a 1 GiB quota, listed by atlatl config", () => {
    const config = loadServerConfig({ configFile: "" }, {});
    expect(config.offloadStore).toEqual({ backend: "local", quotaBytes: 1024 * 1024 * 1024 });
    expect(config.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          key: "offload_store.backend",
          env: "ATLATL_OFFLOAD_STORE__BACKEND",
          value: "local",
          source: "default",
        }),
        expect.objectContaining({ key: "offload_store.quota_bytes", value: 1024 * 1024 * 1024 }),
      ]),
    );
  });

  it("takes postgres and a quota from the file and the environment", () => {
    const file = join(dir, "config.toml");
    writeFileSync(file, `[store]\nurl = "${PG}"\n[offload_store]\nquota_bytes = 5000\n`);
    const config = loadServerConfig(
      { configFile: file },
      { ATLATL_OFFLOAD_STORE__BACKEND: "postgres" },
    );
    expect(config.offloadStore).toEqual({ backend: "postgres", quotaBytes: 5000 });
  });

  it("refuses postgres without a PostgreSQL memory store, naming both settings", () => {
    expect(() =>
      loadServerConfig({ configFile: "" }, { ATLATL_OFFLOAD_STORE__BACKEND: "postgres" }),
    ).toThrow(/offload_store\.backend.*env ATLATL_OFFLOAD_STORE__BACKEND.*store\.url/s);
  });

  it("refuses an unknown backend and a quota below 1, listing what is accepted", () => {
    expect(() =>
      loadServerConfig({ configFile: "" }, { ATLATL_OFFLOAD_STORE__BACKEND: "redis" }),
    ).toThrow(/offload_store\.backend.*local, postgres/s);
    expect(() =>
      loadServerConfig({ configFile: "" }, { ATLATL_OFFLOAD_STORE__QUOTA_BYTES: "0" }),
    ).toThrow(/offload_store\.quota_bytes/);
  });
});
