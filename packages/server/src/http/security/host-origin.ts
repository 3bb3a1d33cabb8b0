import type { MiddlewareHandler } from "hono";
import { problem } from "../problem.js";

/** Host names (no port) and origins a request may carry. */
interface HostOriginPolicy {
  hosts: readonly string[];
  origins: readonly string[];
}

/** `Host: name:port` -> `name` (IPv6 brackets kept: `[::1]`). */
function hostName(host: string): string {
  const m = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(host.trim().toLowerCase());
  return m?.[1] ?? "";
}

/**
 * DNS-rebinding protection: the `Host` header must name an allowed host, and an
 * `Origin` header, when a browser sends one, must be an allowed origin or an
 * http(s) origin on an allowed host. Refused with 403 before anything runs.
 */
export function hostOriginGuard(policy: HostOriginPolicy): MiddlewareHandler {
  const hosts = new Set(policy.hosts.map((h) => h.toLowerCase()));
  const origins = new Set(policy.origins.map((o) => o.toLowerCase().replace(/\/$/, "")));
  return async (c, next) => {
    const host = c.req.header("host");
    if (host === undefined || !hosts.has(hostName(host))) {
      return problem({
        title: "Forbidden",
        status: 403,
        detail:
          "The Host header is not allowed. Add the name to [server.http] allowed_hosts " +
          "(ATLATL_SERVER__HTTP__ALLOWED_HOSTS).",
      });
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && !originAllowed(origin, hosts, origins)) {
      return problem({
        title: "Forbidden",
        status: 403,
        detail:
          "The Origin is not allowed. Add it to [server.http] allowed_origins " +
          "(ATLATL_SERVER__HTTP__ALLOWED_ORIGINS).",
      });
    }
    await next();
  };
}

function originAllowed(origin: string, hosts: Set<string>, origins: Set<string>): boolean {
  const o = origin.toLowerCase();
  if (origins.has(o)) return true;
  let url: URL;
  try {
    url = new URL(o);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && hosts.has(url.hostname);
}
