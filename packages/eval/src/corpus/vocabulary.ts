/** Word lists of the synthetic memory corpus (weights skew the mix like a real store). */

/** Namespaces with weights: a few dominate, as in a lived-in memory store. */
export const NAMESPACES = [
  ["_episodic/incidents", 46],
  ["_semantic/decisions", 22],
  ["_procedural/runbooks", 14],
  ["_semantic/knowledge", 11],
  ["_episodic/sessions", 8],
  ["_procedural/patterns", 5],
] as const;

export const MEMORY_TYPE_BY_PREFIX: Record<string, string> = {
  _episodic: "episodic",
  _semantic: "semantic",
  _procedural: "procedural",
};

/** Products a memory may mention; written in varied case in the content. */
export const PRODUCTS = [
  ["Nimbus DB", 46],
  ["Atlas Gateway", 20],
  ["Quasar Queue", 13],
  ["Helix Cache", 10],
  ["Orion Search", 7],
  ["Vega Billing", 6],
  ["Lumen Auth", 4],
] as const;

export const SUBJECTS = [
  "connection pool exhaustion",
  "slow checkout requests",
  "schema migration rollout",
  "certificate rotation",
  "retry storm after deploy",
  "memory leak in workers",
  "cache stampede",
  "disk pressure on replicas",
  "rate limit tuning",
  "on-call handover",
  "index rebuild",
  "feature flag cleanup",
  "backup restore drill",
  "latency regression",
  "queue backlog",
  "auth token expiry",
];

export const ACTIONS = [
  "We decided to",
  "The team chose to",
  "Runbook step: ",
  "Observed that we must",
  "Agreed to",
  "Next time,",
];

export const REMEDIES = [
  "raise the pool size and add a circuit breaker",
  "roll back the release and pin the previous image",
  "shard the hot partition and rebalance nightly",
  "add jittered exponential backoff to every client",
  "move the job to the batch window after midnight UTC",
  "alert on p99 latency instead of the mean",
  "pre-warm the cache before switching traffic",
  "document the manual failover in the wiki",
];

export const TAGS = [
  "postmortem",
  "performance",
  "security",
  "database",
  "networking",
  "deploy",
  "oncall",
  "capacity",
  "billing",
  "observability",
];

export const SOURCES = ["conversation", "incident-review", "code-review", "runbook", "import"];

export const STATUSES = [
  ["active", 85],
  ["archived", 15],
] as const;
