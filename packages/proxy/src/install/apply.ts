/** Carrying out plans (backup, atomic replace) and showing them (a unified diff, a summary). */
import { createTwoFilesPatch } from "diff";
import { writeWithBackup } from "./atomic-write.js";
import type { FilePlan } from "./plan.js";

/** A file that was written, and where its old bytes went. */
export interface Written {
  path: string;
  backup?: string;
}

/** Write every plan that changes its file. */
export function applyPlans(plans: readonly FilePlan[], action: "install" | "uninstall"): Written[] {
  const out: Written[] = [];
  for (const plan of plans) {
    if (plan.after === plan.before) continue;
    out.push({ path: plan.path, ...writeWithBackup(plan.path, plan.before, plan.after, action) });
  }
  return out;
}

/** The plans as a unified diff (empty when nothing would change). */
export function plansDiff(plans: readonly FilePlan[]): string {
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
export function plansSummary(plans: readonly FilePlan[]): string {
  const lines: string[] = [];
  for (const plan of plans) {
    lines.push(`${plan.path}${plan.after === plan.before ? " (no change)" : ""}`);
    for (const e of plan.entries) {
      lines.push(`  ${e.action} ${e.map} ${e.name}${e.reason ? ` (${e.reason})` : ""}`);
    }
    for (const note of plan.notes) lines.push(`  note: ${note}`);
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

/**
 * Carry out `action`'s plans and report on stdout: for a dry run the diff (and
 * the summary as `#` lines), else the summary and each file written with its backup.
 */
export function carryOut(
  plans: FilePlan[],
  action: "install" | "uninstall",
  dryRun: boolean | undefined,
  out: NodeJS.WritableStream = process.stdout,
): void {
  if (dryRun) {
    out.write(plansDiff(plans) || "no change\n");
    out.write(plansSummary(plans).replace(/^(?=.)/gm, "# "));
    return;
  }
  const written = applyPlans(plans, action);
  out.write(plansSummary(plans));
  for (const w of written)
    out.write(`wrote ${w.path}${w.backup ? ` (backup: ${w.backup})` : ""}\n`);
  if (plans.length === 0) out.write("no config file found\n");
}
