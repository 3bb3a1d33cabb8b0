/** The offload store contract on the local file system (the default) and on the in-memory shared test store. */

import { localOffloadStore } from "@atlatl/lro/node";
import { describe } from "vitest";
import { memoryOffloadStore } from "../fixtures/memory-offload-store.js";
import { offloadStoreContract } from "./offload-store.contract.js";

describe("local file system", () => {
  offloadStoreContract({
    name: "local",
    shared: false,
    quota: false,
    open: async () => ({
      store: localOffloadStore,
      again: async () => localOffloadStore,
      cleanup: async () => {},
    }),
  });
});

describe("in-memory shared store", () => {
  offloadStoreContract({
    name: "memory",
    shared: true,
    quota: true,
    open: async (options) => {
      const m = memoryOffloadStore(options);
      return { store: m.handle(), again: async () => m.handle(), cleanup: async () => {} };
    },
  });
});
