/**
 * Printing connection strings without their secrets: the one definition every
 * place that prints a database URL uses (`atlatl config`, the `serve` banner,
 * `OPEN_FAILED` and bad-configuration errors).
 *
 * `pg` takes a password from the URL's userinfo (`user:pw@`) and from any query
 * parameter it reads (`?password=`, `?sslpassword=` for the key's passphrase);
 * libpq also accepts `key=value` strings. Every one of them is masked. The
 * decisions follow how `pg` parses (WHATWG URL: the userinfo ends at the last
 * `@` of the authority, query keys are percent- and `+`-decoded, tabs and
 * newlines are ignored), but the text is rewritten in place so the rest of the
 * URL prints exactly as the user wrote it.
 */

/** What replaces a secret. */
const MASK = "***";

/** A parameter whose value is a secret: `password`, `sslpassword` (paths such as `sslkey` are not). */
const SECRET_KEY = /password/i;

/** Scheme and authority of a URL: the userinfo is everything up to the authority's last `@`. */
const AUTHORITY = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i;

/** A libpq `key=value` pair with a secret key; the value may be single-quoted with `\` escapes. */
const KEY_VALUE_SECRET = /(\b[a-z_]*password\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s&]*)/gi;

/** `url` with every password it carries replaced by `***` (for printing). */
export function redactUrl(input: string): string {
  // The URL parser drops tabs and newlines anywhere and trims the ends; so does this.
  const url = input.replace(/[\t\n\r]/g, "").trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return input.replace(KEY_VALUE_SECRET, `$1${MASK}`);
  const hash = url.indexOf("#");
  const beforeHash = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? "" : url.slice(hash);
  const q = beforeHash.indexOf("?");
  const base = q === -1 ? beforeHash : beforeHash.slice(0, q);
  const query = q === -1 ? null : beforeHash.slice(q + 1);
  return `${redactUserinfo(base)}${query === null ? "" : `?${redactQuery(query)}`}${fragment}`;
}

function redactUserinfo(base: string): string {
  return base.replace(AUTHORITY, (_all, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(":");
    if (colon === -1 || colon === userinfo.length - 1) return `${scheme}${userinfo}@`;
    return `${scheme}${userinfo.slice(0, colon)}:${MASK}@`;
  });
}

function redactQuery(query: string): string {
  return query
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const rawKey = eq === -1 ? pair : pair.slice(0, eq);
      return SECRET_KEY.test(decodeKey(rawKey)) ? `${rawKey}=${MASK}` : pair;
    })
    .join("&");
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
