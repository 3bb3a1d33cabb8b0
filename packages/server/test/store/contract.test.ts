/** The store contract, once per backend under test. */
import { BACKENDS } from "../backends/backends.js";
import { describeMemoryStoreContract } from "./store.contract.js";
import { describeVectorIndexContract } from "./vector-index.contract.js";

for (const backend of BACKENDS) {
  describeMemoryStoreContract(backend);
  describeVectorIndexContract(backend);
}
