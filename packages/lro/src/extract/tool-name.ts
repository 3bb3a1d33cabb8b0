/** Default name of the extraction tool, which guidance names (see `registerLroExtract`). */
export const LRO_EXTRACT_TOOL_NAME = "lro_extract";
