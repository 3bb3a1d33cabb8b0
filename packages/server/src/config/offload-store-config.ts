/**
 * `[offload_store]`: where offload files are kept besides the disk of the
 * instance that wrote them. `local` (the default) keeps them on that disk
 * only, for one instance; `postgres` shares them through the memory database, for several instances
 * behind one load balancer (docs/scale-out.md).
 */
import { ConfigValueError, type ResolvedSection, resolveConfigSection } from "@atlatl/lro/node";

/** The backends of the offload store. */
const OFFLOAD_STORE_BACKENDS = ["local", "postgres"] as const;
export type OffloadStoreBackend = (typeof OFFLOAD_STORE_BACKENDS)[number];

/** The resolved `[offload_store]` section. */
export interface OffloadStoreConfig {
  backend: OffloadStoreBackend;
  /** Most bytes of live offload files one principal keeps in a shared store. */
  quotaBytes: number;
}

/** The section's dotted name (TOML table, `ATLATL_OFFLOAD_STORE__*` variables). */
export const OFFLOAD_STORE_SECTION = "offload_store";

const OFFLOAD_STORE_KEYS = {
  backend: {
    type: "string",
    default: "local",
    check: (v: string) =>
      (OFFLOAD_STORE_BACKENDS as readonly string[]).includes(v)
        ? undefined
        : `one of ${OFFLOAD_STORE_BACKENDS.join(", ")}`,
    description:
      "Where offload files are shared between instances: local (this disk only) or postgres (the store.url database; requires it)",
  },
  quota_bytes: {
    type: "integer",
    min: 1,
    default: 1024 * 1024 * 1024,
    description: "Most bytes of live offload files one principal keeps in a shared offload store",
  },
} as const;

/** Options of {@link resolveOffloadStoreConfig}: the generic resolver's layers. */
type Layers = Omit<
  Parameters<typeof resolveConfigSection<typeof OFFLOAD_STORE_KEYS>>[0],
  "section" | "keys"
>;

/**
 * Resolve `[offload_store]`. `postgres` without a PostgreSQL memory store
 * (`store.url`) is refused, naming both settings.
 */
export function resolveOffloadStoreConfig(
  layers: Layers,
  storeBackend: "sqlite" | "postgres",
): { config: OffloadStoreConfig; resolved: ResolvedSection<typeof OFFLOAD_STORE_KEYS> } {
  const resolved = resolveConfigSection({
    section: OFFLOAD_STORE_SECTION,
    keys: OFFLOAD_STORE_KEYS,
    ...layers,
  });
  const backend = resolved.values.backend as OffloadStoreBackend;
  if (backend === "postgres" && storeBackend !== "postgres") {
    throw new ConfigValueError(
      `${OFFLOAD_STORE_SECTION}.backend`,
      backend,
      resolved.sources.backend,
      "local unless store.url names a PostgreSQL database (the postgres offload store lives in the memory database)",
    );
  }
  return { config: { backend, quotaBytes: resolved.values.quota_bytes }, resolved };
}
