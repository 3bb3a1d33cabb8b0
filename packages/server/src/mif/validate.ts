/**
 * Validation of MIF documents against the vendored MIF v0.1.0 JSON Schema.
 *
 * Policy (why the schema is applied with one relaxation):
 * - Every constraint of the schema holds: required fields (`@context`, `@type`, `@id`,
 *   `memoryType`, `content`, `created`), types, enums (`memoryType`, `trustLevel`, ...),
 *   formats (`created` is an RFC 3339 date-time), patterns (`namespace`, `urn:mif:` ids),
 *   bounds (`confidence` in [0, 1]). A document that breaks one is rejected, reported with
 *   a JSON pointer, and not imported: importing it would store data we cannot trust or
 *   export again as valid MIF.
 * - `additionalProperties: false` is relaxed everywhere. Such a violation only means the
 *   document carries data the schema does not describe (the official example
 *   `level-3-full.memory.json` has `temporal.reinforcementHistory` and
 *   `temporal.decay.lastReinforced`); nothing we rely on is wrong, and the import
 *   promises to lose nothing, so the data is accepted and kept verbatim in the model's
 *   `extra` / `extensions` slots. Relaxing the schema (rather than filtering error
 *   keywords afterwards) keeps `oneOf` branches exact: an extra key inside a citation
 *   author does not make the whole `oneOf` fail.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import * as ajvFormats from "ajv-formats";

/** One schema violation: where (RFC 6901 pointer into the document) and what. */
export interface MifIssue {
  pointer: string;
  message: string;
}

export type MifValidation = { ok: true } | { ok: false; issues: MifIssue[] };

const schemaDir = new URL("../../vendor/mif/schema/", import.meta.url);

function loadSchema(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(fileURLToPath(new URL(name, schemaDir)), "utf8")) as Record<
    string,
    unknown
  >;
}

/** Deep copy of a schema with every `additionalProperties: false` removed (see policy). */
function relaxAdditionalProperties(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(relaxAdditionalProperties);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "additionalProperties" && value === false) continue;
    out[key] = relaxAdditionalProperties(value);
  }
  return out;
}

// ajv-formats is CommonJS; its default export arrives as the namespace's `default`.
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((ajvFormats as unknown as { default: AddFormats }).default ??
  (ajvFormats as unknown as AddFormats)) as AddFormats;

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (compiled) return compiled;
  // strict: false because the MIF schema uses annotations ajv's strict mode rejects
  // (`description` beside `$ref`, `format` on a `["string", "null"]` type).
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema(
    relaxAdditionalProperties(loadSchema("definitions/entity-reference.schema.json")) as object,
  );
  ajv.addSchema(relaxAdditionalProperties(loadSchema("citation.schema.json")) as object);
  compiled = ajv.compile(relaxAdditionalProperties(loadSchema("mif.schema.json")) as object);
  return compiled;
}

function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function describe(error: ErrorObject): MifIssue {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return {
        pointer: `${error.instancePath}/${escapePointerSegment(String(params.missingProperty))}`,
        message: "is required",
      };
    case "enum":
      return {
        pointer: error.instancePath,
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      };
    case "const":
      return {
        pointer: error.instancePath,
        message: `must be ${JSON.stringify(params.allowedValue)}`,
      };
    case "format":
      return { pointer: error.instancePath, message: `must be a valid ${String(params.format)}` };
    default:
      return { pointer: error.instancePath, message: error.message ?? error.keyword };
  }
}

/** Aggregate keywords whose own message adds nothing to their branches' messages. */
const AGGREGATE_KEYWORDS = new Set(["oneOf", "anyOf", "allOf", "if", "contains"]);

/** Validate one MIF JSON-LD document (already parsed) against the relaxed schema. */
export function validateMifDocument(doc: unknown): MifValidation {
  const validate = validator();
  if (validate(doc)) return { ok: true };
  const errors = validate.errors ?? [];
  const byPointer = new Map<string, string[]>();
  const specific = errors.filter((e) => !AGGREGATE_KEYWORDS.has(e.keyword));
  for (const error of specific.length > 0 ? specific : errors) {
    const issue = describe(error);
    const messages = byPointer.get(issue.pointer) ?? [];
    if (!messages.includes(issue.message)) messages.push(issue.message);
    byPointer.set(issue.pointer, messages);
  }
  const issues = [...byPointer].map(([pointer, messages]) => ({
    pointer,
    message: messages.join(", or "),
  }));
  return { ok: false, issues };
}
