/**
 * A call's response policy and its judgement against the configuration: the
 * part of the result→response boundary (`respond.ts`) that decides whether a
 * result may be offloaded at all, and above which threshold. `respond()` and
 * `respondOutput()` (re-offloaded extraction output) both judge here.
 */
import type { OffloadConfig } from "../../config/offload-config.js";

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

export type Policy = { off: boolean; threshold: number; force: boolean };

/** The policy against the configuration: off (never, or LRO disabled), the threshold, forced. */
export function judged(policy: ResponsePolicy, config: OffloadConfig): Policy {
  const force = policy.mode === "always";
  const off = policy.mode === "never" || (!config.enabled && !force);
  return { off, force, threshold: policy.thresholdTokens ?? config.thresholdTokens };
}

/** The judgement as `offloadRecords` options. */
export function decision(p: Policy) {
  return p.off
    ? { thresholdTokens: Number.POSITIVE_INFINITY }
    : { thresholdTokens: p.threshold, force: p.force };
}
