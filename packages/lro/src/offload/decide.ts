/**
 * The one threshold decision: whether a result of so many estimated tokens is
 * offloaded. Every path judges here (the records and sections pipelines, a
 * ready `CallToolResult`, re-offloaded extraction output), and this is the
 * only reader of the configuration's `enabled` ("LRO off").
 */
import type { OffloadConfig } from "../config/offload-config.js";

/** A call's judgement: never offloaded (`off`), always (`force`), or above `threshold`. */
export interface ThresholdPolicy {
  off: boolean;
  force: boolean;
  threshold: number;
}

/** What a call asks: offload regardless (`force`), never (`never`), its own threshold. */
interface ThresholdRequest {
  force?: boolean | undefined;
  never?: boolean | undefined;
  thresholdTokens?: number | undefined;
}

/** The call's judgement against `config`: off when it says never, or LRO is disabled and it does not force. */
export function thresholdPolicy(config: OffloadConfig, request: ThresholdRequest): ThresholdPolicy {
  const force = request.force === true;
  return {
    off: request.never === true || (!config.enabled && !force),
    force,
    threshold: request.thresholdTokens ?? config.thresholdTokens,
  };
}

/** Whether `tokens` are offloaded under `policy`. */
export function decide(tokens: number, policy: ThresholdPolicy): boolean {
  if (policy.off) return false;
  return policy.force || tokens > policy.threshold;
}
