/**
 * The one engine for an arbitrary `CallToolResult` the caller decided to
 * offload (above its threshold, tokens measured): laid out by
 * `call-result-layout.ts`, then records that are the whole result go to the
 * records profile (one file, numbered recipes `lro_extract` runs, `reassemble`
 * lines beside them), anything else to the multi-section descriptor
 * (`offload-layout.ts`). Failures are a return value with a code, so each
 * the response boundary (`respond.ts`) applies the one fallback.
 */

import type { CallEvents } from "../events/events.js";
import { recordsProfile } from "../profiles/records/records-profile.js";
import { layoutResult } from "../profiles/sections/call-result-layout.js";
import type { AnyCallToolResult } from "../protocol/mcp-types.js";
import { offloadLayout } from "./offload-layout.js";
import type { Offloader } from "./offloader.js";

type Obj = Record<string, unknown>;

/** Options of {@link offloadLaidOut} (`onEvent`: the call's listener). */
export interface OffloadLaidOutOptions extends CallEvents {
  operation: string;
  query?: string | null;
  /** Measured tokens of the whole result. */
  estimatedTokens: number;
  /** Keys of the records' envelope (or of `structuredContent`) kept inline; undefined: every envelope key for records, none for sections. */
  inlineKeys?: readonly string[] | undefined;
  /** Fields put first on the descriptor (e.g. the proxy's `tool`). */
  inline?: Obj;
}

/** What {@link offloadLaidOut} did. */
export type LaidOutOffload =
  | {
      kind: "offloaded";
      /** `records` (the records profile, `file_path`) or `sections` (`files`). */
      profile: "records" | "sections";
      descriptor: Obj;
      /** The JSONL files written, with a short description of each. */
      files: { path: string; description: string }[];
      /** Attachment files (images, blobs). */
      attachments: string[];
    }
  | { kind: "failed"; code: string; message: string };

/** The fields of `obj` under `keys` (all of them when `keys` is undefined). */
function onlyKeys(obj: Obj, keys: readonly string[] | undefined): Obj {
  if (!keys) return obj;
  return Object.fromEntries(keys.filter((k) => k in obj).map((k) => [k, obj[k]]));
}

function failure(error: unknown, warning: string): LaidOutOffload {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code =
    typeof e?.cause?.code === "string"
      ? e.cause.code
      : typeof e?.code === "string"
        ? e.code
        : "WRITE_FAILED";
  return { kind: "failed", code, message: warning };
}

/** Offload `result` (not `isError`), whatever its size; see the module comment. */
export async function offloadLaidOut(
  offloader: Offloader,
  result: AnyCallToolResult,
  options: OffloadLaidOutOptions,
): Promise<LaidOutOffload> {
  const layout = layoutResult(result, options.inlineKeys ?? []);
  const pure = layout.pure;
  if (pure) {
    const outcome = await offloader.offloadRecords({
      operation: options.operation,
      query: options.query ?? null,
      profile: recordsProfile,
      records: pure.records,
      force: true,
      onEvent: options.onEvent,
    });
    if (outcome.kind !== "offloaded") {
      return outcome.kind === "truncated"
        ? failure(outcome.error, outcome.warning)
        : failure(undefined, "offload failed");
    }
    const { offloaded, ...described } = outcome.response;
    return {
      kind: "offloaded",
      profile: "records",
      descriptor: {
        offloaded,
        ...options.inline,
        ...onlyKeys(pure.rest, options.inlineKeys),
        ...(pure.key !== undefined ? { records_key: pure.key } : {}),
        ...described,
        reassemble: pure.reassemble,
      },
      files: [
        {
          path: outcome.file.path,
          description: `${outcome.file.header.count} records, JSONL; line 1 is the header`,
        },
      ],
      attachments: [],
    };
  }
  let written: Awaited<ReturnType<typeof offloadLayout>>;
  try {
    written = await offloadLayout(offloader, layout, {
      operation: options.operation,
      query: options.query ?? null,
      inline: { ...options.inline, ...layout.inline },
      estimatedTokens: options.estimatedTokens,
      onEvent: options.onEvent,
    });
  } catch (err) {
    // An attachment failed (the sections pipeline reports its own failures).
    offloader.reportWriteFailure(options.operation, err, options.estimatedTokens, options.onEvent);
    return failure(err, (err as Error)?.message ?? String(err));
  }
  const { outcome, attachments } = written;
  if (outcome.kind !== "offloaded") {
    return outcome.kind === "truncated"
      ? failure(outcome.error, outcome.warning)
      : failure(undefined, "offload failed");
  }
  return {
    kind: "offloaded",
    profile: "sections",
    descriptor: outcome.response as unknown as Obj,
    files: outcome.files.map((f) => ({
      path: f.path,
      description: `section ${String((f.header as { section?: unknown }).section)} (JSONL; line 1 is the header)`,
    })),
    attachments,
  };
}
