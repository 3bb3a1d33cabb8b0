/**
 * The one write path of a laid-out `CallToolResult` (see `call-result-layout.ts`):
 * its binary parts become attachment files (all or none; swept with the
 * offload files) and its sections go through `Offloader.offloadSections`.
 * Used by `offloadCallToolResult` and by the proxy (which adds its own inline
 * fields, guidance and fallback).
 */

import type { CallEvents } from "../events/events.js";
import type { BinaryPart, ResultLayout } from "../profiles/sections/call-result-layout.js";
import type { Offloader } from "./offloader.js";
import type { OffloadSection, OffloadSectionsResult } from "./types.js";

/** Write every binary part as an attachment and patch its `ref` with the file; all or none. */
async function writeBinaries(
  offloader: Offloader,
  operation: string,
  parts: readonly BinaryPart[],
): Promise<string[]> {
  const written: string[] = [];
  try {
    for (const part of parts) {
      const data = Buffer.from(part.base64, "base64");
      const file = await offloader.writeAttachment({ operation, data, mimeType: part.mimeType });
      written.push(file.path);
      part.ref.file = file.path;
      part.ref.bytes = file.bytes;
    }
    return written;
  } catch (err) {
    await offloader.removeFiles(written);
    throw err;
  }
}

/** What {@link offloadLayout} did: the engine's outcome and the attachment files written. */
export interface LayoutOffload {
  outcome: OffloadSectionsResult;
  /** Attachment paths; already removed again when the outcome is not `offloaded`. */
  attachments: string[];
}

/**
 * Write `layout` (forced: the caller decided it is above its threshold, with
 * `estimatedTokens` measured). Throws the attachment write error, if any.
 */
export async function offloadLayout(
  offloader: Offloader,
  layout: ResultLayout,
  input: CallEvents & {
    operation: string;
    query?: string | null;
    inline?: Record<string, unknown>;
    estimatedTokens: number;
  },
): Promise<LayoutOffload> {
  const attachments = await writeBinaries(offloader, input.operation, layout.binaries);
  const sections: OffloadSection[] = layout.sections.map((s) => ({
    key: s.key,
    ...(s.encoded ? { encoded: s.encoded } : { items: s.items }),
    ...(s.lineSchema ? { lineSchema: s.lineSchema } : {}),
    description: s.description,
    ...(s.recipes ? { recipes: s.recipes } : {}),
  }));
  const outcome = await offloader.offloadSections({
    operation: input.operation,
    query: input.query ?? null,
    sections,
    ...(input.inline ? { inline: input.inline } : {}),
    // Measured by the caller: the lines are not serialized or measured again.
    estimatedTokens: input.estimatedTokens,
    force: true,
    onEvent: input.onEvent,
  });
  if (outcome.kind !== "offloaded") await offloader.removeFiles(attachments);
  return { outcome, attachments };
}
