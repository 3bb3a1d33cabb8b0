/**
 * An upstream's result as the client gets it. A 2026-07-28 upstream stamps
 * its identity into every result's `_meta` (`io.modelcontextprotocol/serverInfo`)
 * and cache fields (`ttlMs`, `cacheScope`) into list and read results: a 2026
 * client gets the cache fields as the upstream set them and the identity from
 * the proxy's own server (which answers as the upstream); a 2025 client, which
 * has neither, gets the result as a 2025 upstream would have sent it.
 */
import { type Result, SERVER_INFO_META_KEY } from "@modelcontextprotocol/server";
import type { Era } from "./downstream-server.js";

/** `result` of a 2026 upstream for a client of `era` (see the file's comment). */
export function upstreamResultFor(result: Result, era: Era): Result {
  const { _meta, ...rest } = result;
  const out: Record<string, unknown> = rest;
  if (era === "legacy") {
    delete out.ttlMs;
    delete out.cacheScope;
  }
  if (_meta && SERVER_INFO_META_KEY in _meta) {
    const { [SERVER_INFO_META_KEY]: _identity, ...meta } = _meta;
    if (Object.keys(meta).length > 0) out._meta = meta;
  } else if (_meta) {
    out._meta = _meta;
  }
  return out as Result;
}
