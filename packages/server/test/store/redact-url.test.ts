/**
 * redactUrl (`@atlatl/lro/node`, the proxy's too) masks every password `pg`
 * would read from a connection string: the userinfo, `?password=` and
 * `?sslpassword=` however they are spelled (percent escapes, `+`, tabs), a
 * query value of any name it does not know, and libpq `key=value` strings.
 * Each case is checked against `pg`'s own parser: the secret is gone from the
 * printed text, `pg` reads no secret but the mask from it, and the host and
 * database it reads are the same.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redactUrl } from "@atlatl/lro/node";
import { parse } from "pg-connection-string";
import { describe, expect, it } from "vitest";

const SECRET = "s3cr3t";
/** pg reads the `sslkey` file while parsing; it must exist. */
const KEY_FILE = join(tmpdir(), "atlatl-redact-url-test.pem");
writeFileSync(KEY_FILE, "not a key\n");

/** The secrets pg reads from a parsed connection string. */
function secrets(config: ReturnType<typeof parse>): (string | undefined)[] {
  const c = config as Record<string, unknown>;
  return [c.password, c.sslpassword].map((v) =>
    typeof v === "string" && v !== "" ? v : undefined,
  );
}

const URLS = [
  `postgres://atlatl:${SECRET}@db.example:5432/memories`,
  `postgres://atlatl@db.example/memories?password=${SECRET}`,
  `postgresql://db.example/memories?sslmode=require&password=${SECRET}&application_name=x`,
  `postgres://atlatl@db.example/memories?sslkey=${KEY_FILE}&sslpassword=${SECRET}`,
  `postgres://atlatl@db.example/memories?pass%77ord=${SECRET}`,
  `postgres://atlatl@db.example/memories?password=${SECRET}#frag`,
  `postgres://atlatl:a@b:${SECRET}@db.example/memories`,
  `postgres://atlatl:${SECRET}@/memories?host=/var/run/postgresql`,
  `postgres://u:x@h/db?password=${SECRET}&password=${SECRET}2`,
  `postgres://u@h/db?pass\tword=${SECRET}`,
  `postgres://u:${SECRET}%zz@h/db`,
  `socket://u:${SECRET}@/var/run/postgresql?db=memories`,
];

describe("redactUrl", () => {
  it.each(URLS)("masks every password pg reads from %j", (url) => {
    const before = parse(url);
    expect(secrets(before).join(" ")).toContain(SECRET);
    const printed = redactUrl(url);
    expect(printed).not.toContain(SECRET);
    const after = parse(printed);
    for (const secret of secrets(after)) expect([undefined, "***"]).toContain(secret);
    expect(after.host).toBe(before.host);
    expect(after.database).toBe(before.database);
    // The userinfo is hidden whole: a lone user name may be a token.
    expect(after.user).toBe(before.user ? "***" : before.user);
  });

  it("keeps the scheme, host, port, path and connection options as written", () => {
    const url = "postgres://db.example:5432/memories?sslmode=require&options=-c%20x%3D1";
    expect(redactUrl(url)).toBe(url);
    expect(redactUrl("postgres://atlatl:pw@h/db?sslkey=/k.pem&password=pw")).toBe(
      "postgres://***@h/db?sslkey=/k.pem&password=***",
    );
  });

  it("hides a query value of any name it does not know as a connection option", () => {
    expect(redactUrl("postgres://h/db?sslmode=require&auth_token=TOKEN123&flag")).toBe(
      "postgres://h/db?sslmode=require&auth_token=***&***",
    );
  });

  it("masks libpq key=value strings", () => {
    for (const s of [
      `host=db password=${SECRET} user=atlatl`,
      `host=db password = '${SECRET} with \\' quote' user=atlatl`,
      `host=db sslpassword=${SECRET}`,
    ]) {
      const printed = redactUrl(s);
      expect(printed).not.toContain(SECRET);
      expect(printed).toMatch(/^host=db /);
    }
  });
});
