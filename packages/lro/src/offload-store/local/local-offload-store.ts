/**
 * The local file system as an offload store: today's behaviour. The
 * materializer's file in the output directory is the only copy; nothing is
 * published, nothing is fetched, and the directory sweeper alone expires files.
 */
import type { OffloadStore } from "../offload-store.js";

/** The default store: not shared, so the engine never calls it on the offload or read path. */
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
