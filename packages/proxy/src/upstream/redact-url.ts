/**
 * An upstream URL in messages: its userinfo, query values and fragment may be
 * secrets (`https://TOKEN@host/mcp`, `?api_key=…`), so no message of the proxy
 * shows them: not the initialize error the model reads, not stderr.
 */

const HIDDEN = "***";

/** `url` for messages: userinfo, each query value and the fragment replaced by `***`. */
export function redactUrl(url: URL): string {
  const userinfo = url.username !== "" || url.password !== "" ? `${HIDDEN}@` : "";
  const query = url.search.slice(1);
  const params =
    query === ""
      ? ""
      : `?${query
          .split("&")
          .map((p) => (p.includes("=") ? `${p.slice(0, p.indexOf("="))}=${HIDDEN}` : HIDDEN))
          .join("&")}`;
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${params}${url.hash ? `#${HIDDEN}` : ""}`;
}

/** Shorter values are left alone: hiding `1` or `en` would garble a message and hide nothing. */
const MIN_SECRET_CHARS = 4;

/** `url`'s secrets: userinfo, query values (or valueless parameters), fragment; raw and decoded. */
function secretsOf(url: URL): string[] {
  const raw = [url.username, url.password, url.hash.slice(1)];
  for (const p of url.search.slice(1).split("&"))
    raw.push(p.includes("=") ? p.slice(p.indexOf("=") + 1) : p);
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
