/** Sweeping an attachment together with the record that proves it ours. */
import { join } from "node:path";
import type { ParsedOffloadFileName } from "../materialize/file-name.js";
import type { OffloadFs, OffloadStat } from "../materialize/offload-fs.js";
import {
  ATTACHMENT_RECORD_MAX_BYTES,
  type AttachmentRecord,
  attachmentRecordName,
  ownedSingleFile,
  parseAttachmentRecord,
  sha256Hex,
} from "./ownership.js";
import { lstatOrNull, remove, type SweepRun, sameOwnedFile } from "./sweep-run.js";

/**
 * An attachment and its record (see `ownership.ts`). Past the TTL the
 * attachment is deleted only when the record is ours and the attachment's
 * bytes are the ones it records; the record goes once the attachment is gone
 * or proven not ours (a user's file under our name stays, with nothing of ours
 * beside it).
 */
export async function sweepAttachment(
  run: SweepRun,
  name: string,
  parsed: ParsedOffloadFileName,
): Promise<void> {
  const path = join(run.dir, name);
  const recordPath = join(run.dir, attachmentRecordName(name));
  const [file, record] = await Promise.all([
    lstatOrNull(run.fs, path),
    lstatOrNull(run.fs, recordPath),
  ]);
  const expiredAt = parsed.createdAt + run.ttlMs;
  if (expiredAt > run.now) {
    for (const stat of [file, record]) {
      if (stat) ownedSingleFile(stat) ? run.result.kept++ : run.result.foreign++;
    }
    return;
  }
  const proof =
    record && ownedSingleFile(record) ? await readRecord(run.fs, recordPath, record, name) : null;
  let attachmentGone = file === null;
  if (file) {
    if (proof && ownedSingleFile(file) && (await matchesRecord(run.fs, path, file, proof))) {
      attachmentGone = await remove(run, path, parsed, file, expiredAt);
    } else {
      run.result.foreign++;
      attachmentGone = true; // not ours: nothing of ours left for the record to prove
    }
  }
  if (!record) return;
  if (!proof) run.result.foreign++;
  else if (attachmentGone) await remove(run, recordPath, parsed, record, expiredAt);
}

/** The attachment record at `path` when it is ours (same file as stat'ed, one link, valid). */
async function readRecord(
  fs: OffloadFs,
  path: string,
  stat: OffloadStat,
  attachmentName: string,
): Promise<AttachmentRecord | null> {
  try {
    const opened = await fs.readHead(path, ATTACHMENT_RECORD_MAX_BYTES);
    if (!sameOwnedFile(opened.stat, stat)) return null;
    return parseAttachmentRecord(opened.head, attachmentName);
  } catch {
    return null;
  }
}

/** Whether the attachment at `path` holds exactly the bytes `record` describes. */
async function matchesRecord(
  fs: OffloadFs,
  path: string,
  stat: OffloadStat,
  record: AttachmentRecord,
): Promise<boolean> {
  if (stat.size !== record.bytes) return false;
  try {
    const opened = await fs.readHead(path, record.bytes);
    return (
      sameOwnedFile(opened.stat, stat) &&
      opened.head.length === record.bytes &&
      sha256Hex(opened.head) === record.sha256
    );
  } catch {
    return false;
  }
}
