/**
 * The local file system as an offload store (the default). The
 * materializer's file in the output directory is the only copy: a publish
 * keeps nothing, a fetch or a listing finds nothing, and the directory
 * sweeper alone expires files.
 */
import type { OffloadStore } from "../offload-store.js";

/** The default store: not shared; what it is given it does not keep, and it has nothing to give. */
export const localOffloadStore: OffloadStore = {
  kind: "local",
  shared: false,
  publish: async () => {},
  fetch: async () => undefined,
  list: async () => [],
  remove: async () => {},
  sweep: async () => [],
  check: async () => {},
  close: async () => {},
};
