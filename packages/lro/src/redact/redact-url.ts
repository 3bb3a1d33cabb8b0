/**
 * URLs in messages without their secrets: the one policy of the server (a
 * PostgreSQL URL in `atlatl config`, the `serve` banner, `OPEN_FAILED`) and
 * the proxy (an upstream URL in the `initialize` error and on stderr).
 *
 * Secrets have no fixed names across schemes (`pg` reads `user:password@`,
 * `?password=`, `?sslpassword=`; an HTTP upstream takes `https://TOKEN@host`,
 * `?api_key=`, `?sig=`, …), so a list of secret names would leak whichever it
 * missed. Instead what may carry one is hidden: the userinfo whole (a lone
 * user name may be a token), the fragment, and every query value but those of
 * {@link CONNECTION_KEYS}, which say where and how to connect and are never
 * credentials. The scheme, host, port, path and query keys stay as written.
 *
 * The text is rewritten in place rather than reparsed, so a URL the WHATWG
 * parser refuses (`socket://u:pw@/run/postgresql`) is still masked; as that
 * parser (and so `pg`) reads it, the userinfo ends at the authority's last
 * `@`, query keys are percent- and `+`-decoded, and tabs and newlines are
 * ignored. A libpq `key=value` string (no scheme) has its password values
 * masked: its keywords are a fixed list, and `password`, `sslpassword` are
 * its secrets.
 */

/** What replaces a secret. */
const HIDDEN = "***";

/** Scheme and authority of a URL: the userinfo is everything up to the authority's last `@`. */
const AUTHORITY = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i;

/**
 * Query keys whose values are shown: PostgreSQL's connection parameters that
 * name a host, database, user, file path or option, never a secret.
 */
const CONNECTION_KEYS: ReadonlySet<string> = new Set([
  "host",
  "hostaddr",
  "port",
  "db",
  "dbname",
  "user",
  "application_name",
  "fallback_application_name",
  "options",
  "client_encoding",
  "connect_timeout",
  "target_session_attrs",
  "ssl",
  "sslmode",
  "sslcert",
  "sslkey",
  "sslrootcert",
  "sslcrl",
]);

/** A libpq `key=value` pair with a secret key; the value may be single-quoted with `\` escapes. */
const KEY_VALUE_SECRET = /(\b[a-z_]*password\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&]*)/gi;

/** `url` for messages: its userinfo, fragment and query values but connection keys' as `***`. */
export function redactUrl(url: string | URL): string {
  const input = typeof url === "string" ? url : url.href;
  // The URL parser drops tabs and newlines anywhere and trims the ends; so does this.
  const text = input.replace(/[\t\n\r]/g, "").trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return input.replace(KEY_VALUE_SECRET, `$1${HIDDEN}`);
  const hash = text.indexOf("#");
  const beforeHash = hash === -1 ? text : text.slice(0, hash);
  const q = beforeHash.indexOf("?");
  const base = q === -1 ? beforeHash : beforeHash.slice(0, q);
  const query = q === -1 ? "" : beforeHash.slice(q + 1);
  const params = query === "" ? "" : `?${query.split("&").map(redactParam).join("&")}`;
  return `${base.replace(AUTHORITY, `$1${HIDDEN}@`)}${params}${hash === -1 ? "" : `#${HIDDEN}`}`;
}

/** One `key=value` of a query: the value hidden unless the key is one of {@link CONNECTION_KEYS}. */
function redactParam(pair: string): string {
  const eq = pair.indexOf("=");
  const key = eq === -1 ? pair : pair.slice(0, eq);
  if (CONNECTION_KEYS.has(decodeKey(key))) return pair;
  return eq === -1 ? HIDDEN : `${key}=${HIDDEN}`;
}

/** A query key as URLSearchParams (and so `pg`) reads it. */
function decodeKey(raw: string): string {
  const plain = raw.replace(/\+/g, " ");
  try {
    return decodeURIComponent(plain);
  } catch {
    // URLSearchParams keeps malformed escapes literally; decode the valid ones alone.
    return plain.replace(/%[0-9a-f]{2}/gi, (e) =>
      String.fromCharCode(Number.parseInt(e.slice(1), 16)),
    );
  }
}

/** Shorter values are left alone: hiding `1` or `en` would garble a message and hide nothing. */
const MIN_SECRET_CHARS = 4;

/** `url`'s secrets, raw and decoded: what {@link redactUrl} hides, each value on its own. */
function secretsOf(url: URL): string[] {
  const raw = [url.username, url.password, url.hash.slice(1)];
  for (const p of url.search.slice(1).split("&")) {
    const eq = p.indexOf("=");
    if (!CONNECTION_KEYS.has(decodeKey(eq === -1 ? p : p.slice(0, eq))))
      raw.push(eq === -1 ? p : p.slice(eq + 1));
  }
  const all = new Set<string>();
  for (const r of raw) {
    all.add(r);
    try {
      all.add(decodeURIComponent(r.replaceAll("+", " ")));
    } catch {
      // Not percent-encoded text: the raw form is enough.
    }
  }
  // Longest first, so a secret containing another is hidden whole.
  return [...all].filter((s) => s.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
}

/** `message` with `url`'s secrets hidden wherever they appear (in the URL or on their own). */
export function redactUrlSecrets(message: string, url: URL): string {
  let out = message.split(url.href).join(redactUrl(url));
  for (const secret of secretsOf(url)) out = out.split(secret).join(HIDDEN);
  return out;
}
