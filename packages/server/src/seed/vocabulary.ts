/** Word lists the synthetic corpus is built from. */

export interface Project {
  slug: string;
  name: string;
}

export const PROJECTS: readonly Project[] = [
  { slug: "atlas", name: "Atlas" },
  { slug: "borealis", name: "Borealis" },
  { slug: "cobalt", name: "Cobalt" },
  { slug: "dynamo", name: "Dynamo" },
  { slug: "ember", name: "Ember" },
];

export interface Tech {
  name: string;
  /** Topic tag the technology implies. */
  topic: string;
}

export const TECHS: readonly Tech[] = [
  { name: "PostgreSQL", topic: "database" },
  { name: "SQLite", topic: "database" },
  { name: "Redis", topic: "caching" },
  { name: "Kafka", topic: "messaging" },
  { name: "RabbitMQ", topic: "messaging" },
  { name: "React", topic: "frontend" },
  { name: "Svelte", topic: "frontend" },
  { name: "TypeScript", topic: "frontend" },
  { name: "Go", topic: "backend" },
  { name: "Rust", topic: "backend" },
  { name: "Python", topic: "backend" },
  { name: "Kubernetes", topic: "infrastructure" },
  { name: "Terraform", topic: "infrastructure" },
  { name: "Docker", topic: "infrastructure" },
  { name: "gRPC", topic: "api" },
  { name: "GraphQL", topic: "api" },
  { name: "Elasticsearch", topic: "search" },
  { name: "Prometheus", topic: "observability" },
  { name: "Grafana", topic: "observability" },
  { name: "OpenTelemetry", topic: "observability" },
  { name: "Vite", topic: "tooling" },
  { name: "Vitest", topic: "testing" },
  { name: "Playwright", topic: "testing" },
  { name: "S3", topic: "storage" },
];

export const COMPONENTS = [
  "billing service",
  "auth gateway",
  "search API",
  "ingestion worker",
  "web dashboard",
  "notification service",
  "reporting job",
  "feature flag service",
  "CI pipeline",
  "session store",
  "export service",
  "rate limiter",
] as const;

export const PEOPLE = [
  "Alice Chen",
  "Bruno Silva",
  "Chidi Okafor",
  "Dana Kowalski",
  "Elif Yilmaz",
  "Farah Haddad",
  "Goran Petrov",
  "Hana Sato",
] as const;

export const AGENTS = [
  "claude-code",
  "cursor",
  "claude-desktop",
  "copilot-agent",
  "atlatl-cli",
] as const;

/** Extra topic tags mixed into every category. */
export const TOPIC_TAGS = [
  "performance",
  "security",
  "reliability",
  "cost",
  "ux",
  "testing",
  "migration",
  "onboarding",
  "latency",
  "scaling",
  "tech-debt",
  "compliance",
] as const;
