/**
 * A call's response policy and its judgement against the configuration: the
 * part of the result→response boundary (`respond.ts`) that decides whether a
 * result may be offloaded at all, and above which threshold (`respond()`
 * judges here; `decide` takes the judgement).
 */
import type { OffloadConfig } from "../../config/offload-config.js";
import { type ThresholdPolicy, thresholdPolicy } from "../../offload/decide.js";

/** How results are treated (see the module comment). */
export type OffloadMode = "auto" | "always" | "never" | "whole-set-inline";

/** A call's response policy. */
export interface ResponsePolicy {
  mode: OffloadMode;
  /** This call's threshold (default: the offloader's `thresholdTokens`). */
  thresholdTokens?: number | undefined;
  /** Keys of a ready result's JSON object kept inline beside the descriptor. */
  inlineKeys?: readonly string[] | undefined;
  /**
   * `whole-set-inline` only: the most JSON text of records the set carries; a
   * longer set keeps its leading records and says so in its `warning` (a
   * server bounds what one proxy client can make it hold in memory).
   */
  maxInlineBytes?: number | undefined;
  /**
   * The setting `maxInlineBytes` comes from, named in the warning of a set it
   * cut (e.g. `[server.http] proxy_inline_bytes`), so whoever reads the
   * warning knows which bound to raise.
   */
  maxInlineBytesSetting?: string | undefined;
}

/** The default policy: offload above the configured threshold. */
export const AUTO_POLICY: Readonly<ResponsePolicy> = { mode: "auto" };

/** The call's threshold judgement (the one `decide` takes) for `policy` against `config`. */
export function thresholdPolicyOf(policy: ResponsePolicy, config: OffloadConfig): ThresholdPolicy {
  return thresholdPolicy(config, {
    force: policy.mode === "always",
    never: policy.mode === "never",
    thresholdTokens: policy.thresholdTokens,
  });
}

/** The judgement as `offloadRecords` options (off: a threshold nothing is above). */
export function offloadRecordsThreshold(p: ThresholdPolicy): {
  thresholdTokens: number;
  force?: boolean;
} {
  return p.off
    ? { thresholdTokens: Number.POSITIVE_INFINITY }
    : { thresholdTokens: p.threshold, force: p.force };
}
