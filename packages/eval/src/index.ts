/**
 * `atlatl-eval`: the LRO paper's evaluation harness on the atlatl engine. The
 * CLI (`atlatl-eval run|score|report|corpus`) is the usual entry point; these
 * exports let other tools drive the same pieces.
 */

export { main, program } from "./cli.js";
export {
  CONDITIONS,
  type Condition,
  conditionById,
  conditionsFor,
  type Delivery,
  type DescriptorFields,
  EXPERIMENTS,
  type Experiment,
  INLINE_PAGE_SIZE,
  type PromptKind,
  SUMMARY_PAGE_SIZE,
  type ToolName,
} from "./conditions/conditions.js";
export { systemPrompt } from "./conditions/prompts.js";
export {
  buildCorpusFiles,
  type Corpus,
  corpusFile,
  DEFAULT_SCALES,
  DEFAULT_SEED,
  FROZEN_DATA_DIR,
  filterTasksFile,
  idTasksFile,
  loadCorpus,
  MANIFEST_FILE,
  sha256,
  TASKS_PER_CONDITION,
  tasksOf,
  writeCorpusFiles,
} from "./corpus/freeze.js";
export { generateRecords, type MemoryRecord } from "./corpus/records.js";
export {
  ANSWER_INSTRUCTION,
  FILTER_TRUTH_MAX,
  FILTER_TRUTH_MIN,
  type FilterTask,
  generateTasks,
  ID_LOOKUP_ABSENT,
  ID_LOOKUP_PRESENT,
  type IdLookupTask,
  matchesFilter,
  PRIORITY_OPS,
  type PriorityOp,
  type Task,
  type TaskKind,
} from "./corpus/tasks.js";
export { costOf, DEFAULT_PRICES, loadPrices, type PriceTable, priceOf } from "./models/pricing.js";
export { createModel, LOCAL_BASE_URLS } from "./models/registry.js";
export type { ChatModel, ChatReply, ChatRequest, Message, Usage } from "./models/types.js";
export { loadResults, Results } from "./report/aggregate.js";
export { writeReport } from "./report/report.js";
export { wilson } from "./report/wilson.js";
export { runGrid } from "./runner/run.js";
export { runSample } from "./runner/sample.js";
export type { SampleRecord } from "./runner/transcript.js";
export { createSandbox, type Sandbox, type SandboxMode } from "./sandbox/sandbox.js";
export { type SampleScore, scoreSample } from "./score/score.js";
export { ablateDescriptor } from "./strategies/ablate.js";
export { createEnvironment, type ToolEnvironment } from "./tools/environment.js";
