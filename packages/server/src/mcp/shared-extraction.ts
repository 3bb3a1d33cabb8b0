import { JqEngine, OffloadFileCache } from "@atlatl/lro/node";

/**
 * What every MCP session of one process shares for extraction: the jq worker
 * and the parsed-file cache. Sessions come and go; these are closed once.
 */
export interface SharedExtraction {
  engine: JqEngine;
  cache: OffloadFileCache;
  close(): Promise<void>;
}

export function createSharedExtraction(): SharedExtraction {
  const engine = new JqEngine();
  const cache = new OffloadFileCache();
  return { engine, cache, close: () => engine.close() };
}
