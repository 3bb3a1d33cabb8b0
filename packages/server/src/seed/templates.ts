/**
 * Prose templates of the synthetic corpus, one family per namespace category. Each
 * yields a title and a short Markdown body (two to four sentences) built from the
 * vocabulary, so full-text search has real words to find and results read plausibly.
 */
import type { MemoryType } from "../model/memory.js";
import type { Prng } from "./prng.js";
import { COMPONENTS, PEOPLE, type Project, TECHS, type Tech } from "./vocabulary.js";

interface TemplateContext {
  rng: Prng;
  project: Project;
  tech: Tech;
  other: Tech;
  component: string;
  person: string;
}

interface Prose {
  title: string;
  content: string;
  /** Topic tag of the prose; defaults to the topic of the context's technology. */
  topic?: string;
}

export interface Category {
  /** Namespace below the type root, e.g. `decisions` in `_semantic/decisions`. */
  name: string;
  memoryType: MemoryType;
  /** Tag every memory of the category carries. */
  tag: string;
  /** Whether the namespace gets a per-project segment (`_semantic/decisions/atlas`). */
  perProject: boolean;
  /** Relative frequency in the corpus. */
  weight: number;
  write(ctx: TemplateContext): Prose;
}

function sentences(
  ctx: TemplateContext,
  pool: readonly string[],
  min: number,
  max: number,
): string {
  return ctx.rng.sample(pool, ctx.rng.between(min, max)).join(" ");
}

const decisions: Category = {
  name: "decisions",
  memoryType: "semantic",
  tag: "decision",
  perProject: true,
  weight: 3,
  write(ctx) {
    const { tech, other, component, project } = ctx;
    const reasons = [
      `The team already runs ${tech.name} in production, so operations stay familiar.`,
      `${tech.name} handled the load test at twice the expected peak without tuning.`,
      `${other.name} was considered but its licensing and hosting costs were higher.`,
      `Latency at p95 dropped from 180 ms to 60 ms in the prototype.`,
      `The choice keeps the ${component} deployable on its own.`,
      `Revisit this decision if traffic grows beyond ten times the current volume.`,
    ];
    return {
      title: `Use ${tech.name} for the ${component}`,
      content: `We decided to use **${tech.name}** for the ${component} of ${project.name}. ${sentences(ctx, reasons, 1, 2)}`,
    };
  },
};

const preferences: Category = {
  name: "preferences",
  memoryType: "semantic",
  tag: "preference",
  perProject: false,
  weight: 2,
  write(ctx) {
    const { person, tech, rng } = ctx;
    const first = person.split(" ")[0] ?? person;
    const prefs = [
      "small pull requests with one concern each",
      "dark mode in every editor and terminal",
      "explicit error codes over exception messages",
      "tests next to the code they cover",
      "async standups written in the team channel",
      `${tech.name} examples in code reviews`,
      "squash merges with a descriptive title",
      "feature flags for every risky rollout",
    ];
    const pref = rng.pick(prefs);
    const details = [
      `${first} mentioned this twice during reviews.`,
      "Apply it unless the change is an emergency fix.",
      `It came up while pairing on ${tech.name} code.`,
      "This holds across all projects.",
    ];
    return {
      title: `${first} prefers ${pref}`,
      content: `${person} prefers ${pref}. ${sentences(ctx, details, 1, 2)}`,
      topic: pref.includes(tech.name) ? tech.topic : "workflow",
    };
  },
};

const sessions: Category = {
  name: "sessions",
  memoryType: "episodic",
  tag: "session",
  perProject: true,
  weight: 3,
  write(ctx) {
    const { person, tech, component, project, rng } = ctx;
    const task = rng.pick([
      `migrating the ${component} to ${tech.name}`,
      `debugging flaky tests in the ${component}`,
      `profiling slow queries in the ${component}`,
      `reviewing the ${component} API design`,
      `upgrading ${tech.name} in the ${component}`,
    ]);
    const notes = [
      `Found that connection pooling was disabled in staging.`,
      `Two tests depended on wall-clock time; both now use a fake clock.`,
      `The ${tech.name} upgrade needs a config change before release.`,
      `Next step: open a ticket for the missing index.`,
      `${person} will follow up on the retry policy.`,
    ];
    return {
      title: `Session: ${task}`,
      content: `Worked with ${person} on ${task} for ${project.name}. ${sentences(ctx, notes, 1, 2)}`,
    };
  },
};

const incidents: Category = {
  name: "incidents",
  memoryType: "episodic",
  tag: "incident",
  perProject: true,
  weight: 2,
  write(ctx) {
    const { tech, component, rng } = ctx;
    const symptom = rng.pick([
      "returned 502 errors",
      "timed out under load",
      "dropped messages",
      "served stale data",
      "ran out of memory",
    ]);
    const causes = [
      `Root cause: a ${tech.name} connection limit was reached after a deploy.`,
      "Root cause: an expired TLS certificate on an internal endpoint.",
      `Root cause: a retry storm amplified a slow ${tech.name} query.`,
      "Mitigation: rolled back and raised the pool size.",
      "Follow-up: add an alert on queue depth.",
    ];
    return {
      title: `Incident: ${component} ${symptom}`,
      content: `The ${component} ${symptom} for ${rng.between(4, 90)} minutes. ${sentences(ctx, causes, 1, 2)}`,
    };
  },
};

const runbooks: Category = {
  name: "runbooks",
  memoryType: "procedural",
  tag: "runbook",
  perProject: true,
  weight: 2,
  write(ctx) {
    const { tech, component, rng } = ctx;
    const action = rng.pick(["Restart", "Roll back", "Scale out", "Rotate secrets for", "Drain"]);
    const steps = [
      `Check the ${tech.name} dashboard`,
      "Announce it in the incident channel",
      `Run \`make ${component.split(" ")[0]}-status\``,
      "Wait for health checks to pass",
      "Verify error rates are back to baseline",
    ];
    const chosen = rng.sample(steps, rng.between(2, 3));
    return {
      title: `Runbook: ${action} the ${component}`,
      content: `${action} the ${component}:\n\n${chosen.map((s, i) => `${i + 1}. ${s}.`).join("\n")}`,
    };
  },
};

const patterns: Category = {
  name: "patterns",
  memoryType: "procedural",
  tag: "pattern",
  perProject: false,
  weight: 2,
  write(ctx) {
    const { tech, rng } = ctx;
    const pattern = rng.pick([
      "idempotent consumers",
      "outbox table for events",
      "keyset pagination",
      "circuit breaker on outbound calls",
      "expand and contract migrations",
      "structured logging with request ids",
    ]);
    const notes = [
      `Use it whenever ${tech.name} is on the write path.`,
      "It keeps retries safe without distributed locks.",
      "Avoid it for one-off scripts; the overhead is not worth it.",
      "See the decision records for where it is already applied.",
    ];
    return {
      title: `Pattern: ${pattern}`,
      content: `Apply **${pattern}**. ${sentences(ctx, notes, 1, 2)}`,
    };
  },
};

export const CATEGORIES: readonly Category[] = [
  decisions,
  preferences,
  sessions,
  incidents,
  runbooks,
  patterns,
];

export { COMPONENTS, PEOPLE, TECHS };
