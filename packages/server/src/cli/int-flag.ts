import { OFFLOAD_CONFIG_KEYS } from "@atlatl/lro/node";
import { InvalidArgumentError } from "commander";

/** An integer option parser for commander: bounds inclusive, message names the flag. */
export function intFlag(name: string, min = 1, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
    }
    return n;
  };
}

type IntegerKey = { min?: number; max?: number };

/** A flag that sets an integer config key checks the key's own bounds (one source of truth). */
function configIntFlag(name: string, key: IntegerKey) {
  return intFlag(name, key.min ?? Number.MIN_SAFE_INTEGER, key.max ?? Number.MAX_SAFE_INTEGER);
}

/** `serve --threshold` and `--ttl`: the bounds of `prompt.offload.threshold_tokens` / `ttl_seconds`. */
export const thresholdFlag = configIntFlag("--threshold", OFFLOAD_CONFIG_KEYS.threshold_tokens);
export const ttlFlag = configIntFlag("--ttl", OFFLOAD_CONFIG_KEYS.ttl_seconds);
