import type { Benchmark } from "./harness.js";

/** Every benchmark `npm run bench` knows, in run order. Add yours here. */
export const benchmarks: Benchmark[] = [];
