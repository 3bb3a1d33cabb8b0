/** The store contract, once per backend under test. */
import { BACKENDS } from "../backends/backends.js";
import { describeMemoryStoreContract } from "./store.contract.js";

for (const backend of BACKENDS) describeMemoryStoreContract(backend);
