/**
 * `[recall]`: what counts as a match of recall and search. One key,
 * `relevance_floor_percent` (env `ATLATL_RECALL__RELEVANCE_FLOOR_PERCENT`):
 * matches scoring below this percentage of the best match are left out
 * (see `services/relevance-floor.ts`; 0 turns the floor off).
 */
import { type ResolvedSection, resolveConfigSection } from "@atlatl/lro/node";
import { DEFAULT_RELEVANCE_FLOOR_PERCENT } from "../services/relevance-floor.js";

/** The resolved `[recall]` section. */
export interface RecallConfig {
  relevanceFloorPercent: number;
}

const RECALL_KEYS = {
  relevance_floor_percent: {
    type: "integer",
    min: 0,
    max: 100,
    default: DEFAULT_RELEVANCE_FLOOR_PERCENT,
    description:
      "Recall and search match only memories whose text relevance is at least this percentage of the best match's (0: every memory sharing a significant word)",
  },
} as const;

/** Resolve `[recall]`: defaults < TOML file < `ATLATL_RECALL__*` < overrides. */
export function resolveRecallConfig(
  options: Omit<Parameters<typeof resolveConfigSection<typeof RECALL_KEYS>>[0], "section" | "keys">,
): { config: RecallConfig; resolved: ResolvedSection<typeof RECALL_KEYS> } {
  const resolved = resolveConfigSection({ section: "recall", keys: RECALL_KEYS, ...options });
  return {
    config: { relevanceFloorPercent: resolved.values.relevance_floor_percent },
    resolved,
  };
}
