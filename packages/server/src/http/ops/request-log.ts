import type { MiddlewareHandler } from "hono";
import { type Logger, pino } from "pino";
import type { AuthVariables } from "../security/bearer-auth.js";

/** JSON lines on stderr (stdout stays free, as for the stdio server). */
export function createLogger(level = process.env.ATLATL_LOG_LEVEL ?? "info"): Logger {
  return pino({ level, base: { name: "atlatl" } }, pino.destination({ fd: 2, sync: false }));
}

/**
 * One line per request: method, path (no query string: it may carry search
 * text), status, duration and the token's id. Headers are never logged, so
 * neither are tokens.
 */
export function requestLog(logger: Logger): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    // Nothing to build when the level is above info (the line would be dropped).
    if (!logger.isLevelEnabled("info")) return next();
    const start = performance.now();
    try {
      await next();
    } finally {
      logger.info({
        msg: "request",
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - start) * 10) / 10,
        token: c.get("tokenId"),
      });
    }
  };
}
