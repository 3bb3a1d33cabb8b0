/** Constants shared by MIF import and export. */

/** Default JSON-LD context of a MIF document. */
export const MIF_CONTEXT_URL = "https://mif-spec.dev/schema/context.jsonld";
/** Prefix of MIF memory ids (`urn:mif:{id}`). */
export const MIF_ID_PREFIX = "urn:mif:";
/** Prefix of MIF entity ids (`urn:mif:entity:{type}:{slug}`). */
export const MIF_ENTITY_PREFIX = "urn:mif:entity:";
/** Prefix of agent ids inside PROV provenance (`urn:mif:agent:{name}`). */
export const MIF_AGENT_PREFIX = "urn:mif:agent:";

/**
 * Extension key under which export writes the memory's lifecycle `status`
 * (MIF has no such field) and from which import reads it back.
 */
export const STATUS_EXTENSION_KEY = "atlatl:status";

/**
 * Reserved key in `Memory.extensions` holding the MIF top-level properties the model
 * has no field for (`ontology`, `entity`, `compressedAt`, a non-default `@context` or
 * `@type`, unknown keys). Export spreads them back onto the document's top level, so
 * they never appear inside the exported `extensions` object.
 */
export const UNMAPPED_EXTENSION_KEY = "atlatl:mif";
