/** Carrying out plans (backup, atomic replace, the tool's record) and showing them (a unified diff, a summary). */
import { createTwoFilesPatch } from "diff";
import { writeAtomically } from "./atomic-write.js";
import { BACKUPS_KEPT, saveBackup } from "./backups.js";
import type { ClientEnv } from "./clients.js";
import type { FilePlan } from "./plan.js";
import { type Tool, writeRecord } from "./records.js";
import { installStateDir } from "./state-dir.js";

/** A file that was written (or removed), and where its old bytes went. */
export interface Written {
  path: string;
  removed: boolean;
  backup?: string;
}

/** Who runs the plans, and where they keep their state. */
export interface Run {
  tool: Tool;
  action: "install" | "uninstall";
  where: ClientEnv;
}

/** Write every plan that changes its file (a backup of the old bytes first), and each record. */
function applyPlans(plans: readonly FilePlan[], run: Run): Written[] {
  const out: Written[] = [];
  for (const plan of plans) {
    if (plan.after !== plan.before) {
      const backup =
        plan.before === undefined
          ? undefined
          : saveBackup(run.where, plan.path, plan.before, run.tool, run.action);
      writeAtomically(plan.path, plan.after);
      const removed = plan.after === null;
      out.push({ path: plan.path, removed, ...(backup === undefined ? {} : { backup }) });
    }
    for (const r of plan.records ?? []) writeRecord(run.where, plan.path, r);
  }
  return out;
}

/** The plans as a unified diff (empty when nothing would change). */
function plansDiff(plans: readonly FilePlan[]): string {
  return plans
    .filter((p) => p.after !== p.before)
    .map((p) =>
      createTwoFilesPatch(
        p.before === undefined ? "/dev/null" : p.path,
        p.after === null ? "/dev/null" : p.path,
        p.before ?? "",
        p.after ?? "",
        undefined,
        undefined,
        { context: 3 },
      ),
    )
    .join("");
}

/** One line per entry and note, for people. */
function plansSummary(plans: readonly FilePlan[]): string {
  const lines: string[] = [];
  for (const plan of plans) {
    const change =
      plan.after === plan.before ? " (no change)" : plan.after === null ? " (removed)" : "";
    lines.push(`${plan.path}${change}`);
    for (const e of plan.entries) {
      lines.push(`  ${e.action} ${e.map} ${e.name}${e.reason ? ` (${e.reason})` : ""}`);
    }
    for (const note of plan.notes) lines.push(`  note: ${note}`);
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

/**
 * Carry out the plans and report on stdout: for a dry run the diff (and the
 * summary as `#` lines), else the summary, each file written with its backup,
 * and where the backups are kept.
 */
export function carryOut(
  plans: FilePlan[],
  run: Run,
  dryRun: boolean | undefined,
  out: NodeJS.WritableStream = process.stdout,
): void {
  if (dryRun) {
    out.write(plansDiff(plans) || "no change\n");
    out.write(plansSummary(plans).replace(/^(?=.)/gm, "# "));
    return;
  }
  const written = applyPlans(plans, run);
  out.write(plansSummary(plans));
  for (const w of written) {
    const backup = w.backup ? ` (backup: ${w.backup})` : "";
    out.write(`${w.removed ? "removed" : "wrote"} ${w.path}${backup}\n`);
  }
  if (written.some((w) => w.backup)) {
    out.write(
      `backups are kept under ${installStateDir(run.where)}, the newest ${BACKUPS_KEPT} of each file\n`,
    );
  }
  if (plans.length === 0) out.write("no config file found\n");
}
