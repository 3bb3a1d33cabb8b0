import type { Benchmark } from "./harness.js";
import { lroEngineBenchmark } from "./lro-engine.js";
import { lroExtractBenchmark } from "./lro-extract.js";
import { serverHttpBenchmark } from "./server-http.js";
import { serverImportBenchmark } from "./server-import.js";
import { serverMcpBenchmark } from "./server-mcp.js";
import { serverStoreBenchmark } from "./server-store.js";

/** Every benchmark `npm run bench` knows, in run order. Add yours here. */
export const benchmarks: Benchmark[] = [
  serverMcpBenchmark,
  lroEngineBenchmark,
  lroExtractBenchmark,
  serverImportBenchmark,
  serverStoreBenchmark,
  serverHttpBenchmark,
];
