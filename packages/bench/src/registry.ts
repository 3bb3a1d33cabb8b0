import { descriptorTokensBenchmark } from "./descriptor-tokens.js";
import type { Benchmark } from "./harness.js";
import { lroEngineBenchmark } from "./lro-engine.js";
import { lroExtractBenchmark } from "./lro-extract.js";
import { offloadStoreBenchmark } from "./offload-store.js";
import { proxyBenchmark } from "./proxy.js";
import { recallHybridBenchmark } from "./recall-hybrid.js";
import { recallQualityBenchmark } from "./recall-quality.js";
import { serverBatchCaptureBenchmark } from "./server-batch-capture.js";
import { serverHttpBenchmark } from "./server-http.js";
import { serverImportBenchmark } from "./server-import.js";
import { serverImportRejectionsBenchmark } from "./server-import-rejections.js";
import { serverMcpBenchmark } from "./server-mcp.js";
import { serverPostgresBenchmark } from "./server-postgres.js";
import { serverStoreBenchmark } from "./server-store.js";
import { serverWholeSetBenchmark } from "./server-whole-set.js";
import { tokenEconomyBenchmark } from "./token-economy.js";

/** Every benchmark `npm run bench` knows, in run order. Add yours here. */
export const benchmarks: Benchmark[] = [
  serverMcpBenchmark,
  lroEngineBenchmark,
  lroExtractBenchmark,
  descriptorTokensBenchmark,
  serverImportBenchmark,
  serverImportRejectionsBenchmark,
  serverStoreBenchmark,
  serverWholeSetBenchmark,
  serverPostgresBenchmark,
  offloadStoreBenchmark,
  proxyBenchmark,
  serverHttpBenchmark,
  serverBatchCaptureBenchmark,
  tokenEconomyBenchmark,
  recallHybridBenchmark,
  recallQualityBenchmark,
];
