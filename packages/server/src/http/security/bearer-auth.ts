import { hash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { tokenPrincipal } from "../mcp/principals.js";
import { problem } from "../problem.js";

/** What the auth middleware puts on the context: which token (never its value). */
export interface AuthVariables {
  /** `token-N` by position: limits, metrics and logs. */
  tokenId: string;
  /** The token's identity (a hash, stable across reordering): who owns LRO state. */
  principalId: string;
}

/** Shortest token accepted when listening beyond loopback (a short one could be guessed). */
export const MIN_TOKEN_CHARS = 16;

/** SHA-256 of a token (one-shot `crypto.hash`: half the cost of a `Hash` object per request). */
const digest = (token: string): Buffer => hash("sha256", token, "buffer") as unknown as Buffer;

/**
 * Bearer token authentication. Tokens are kept and compared as SHA-256 digests
 * with `timingSafeEqual`, every configured token checked on every request, so
 * neither the match nor its position leaks through timing. The context gets
 * `tokenId` (`token-1`, ...) for sessions, limits and logs, and `principalId`
 * (see `tokenPrincipal`) for the offload files it owns.
 */
export function bearerAuth(tokens: readonly string[]): MiddlewareHandler<{
  Variables: AuthVariables;
}> {
  const digests = tokens.map(digest);
  const principals = tokens.map(tokenPrincipal);
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) {
      return problem(
        {
          title: "Unauthorized",
          status: 401,
          detail: "Send the token as an `Authorization: Bearer <token>` header.",
        },
        { "www-authenticate": 'Bearer realm="atlatl"' },
      );
    }
    const given = digest(match[1]);
    let found = -1;
    digests.forEach((d, i) => {
      if (timingSafeEqual(d, given) && found < 0) found = i;
    });
    if (found < 0) {
      return problem(
        { title: "Unauthorized", status: 401, detail: "The bearer token is not valid." },
        { "www-authenticate": 'Bearer realm="atlatl", error="invalid_token"' },
      );
    }
    c.set("tokenId", `token-${found + 1}`);
    c.set("principalId", principals[found] as string);
    await next();
  };
}
