/**
 * The sections profile: the Python library's multi-section form. Each section
 * is one file of arbitrary JSON values (text lines, blocks, output values),
 * described by `summary`/`files`/`schemas`/`jq_recipes`/`guidance` maps keyed
 * by section. No numbered recipes: `lro_extract` takes jq queries on these
 * files. Its headers say `"profile":"sections"` and name their `section`.
 */
import { LineSchemaAccumulator } from "../../descriptor/infer-schema.js";
import type { GenericOffloadResponse, JsonSchema } from "../../types.js";
import type { Profile } from "../profile.js";
import { buildGenericDescriptor } from "./sections-descriptor.js";

/** Name of the sections profile (the header's `profile`). */
export const SECTIONS_PROFILE = "sections";

/** Header `schema_version` of section files. */
export const SECTIONS_SCHEMA_VERSION = "generic";

/** Section key used when one result is offloaded as a single section. */
export const DEFAULT_SECTION_KEY = "results";

/** Statistics of one section. */
export interface SectionStats {
  count: number;
  lineSchema: JsonSchema;
}

class SectionAccumulator {
  private count = 0;
  private readonly schema = new LineSchemaAccumulator();
  add(item: unknown): void {
    this.count++;
    this.schema.add(item);
  }
  result(): SectionStats {
    return { count: this.count, lineSchema: this.schema.result() };
  }
}

/** The sections profile (a single-section result when used through `offloadRecords`). */
export const sectionsProfile: Profile<GenericOffloadResponse, SectionStats> = {
  name: SECTIONS_PROFILE,
  schemaVersion: SECTIONS_SCHEMA_VERSION,
  normalizeDetail: (detail) => detail ?? "raw",
  project: (record) => record,
  accumulate: () => new SectionAccumulator(),
  headerFields: () => ({ profile: SECTIONS_PROFILE, section: DEFAULT_SECTION_KEY }),
  describe: (input) =>
    buildGenericDescriptor([
      {
        key: DEFAULT_SECTION_KEY,
        filePath: input.filePath,
        count: input.count,
        lineSchema: input.stats.lineSchema,
      },
    ]),
};
