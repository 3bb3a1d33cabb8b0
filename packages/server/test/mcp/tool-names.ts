/**
 * atlatl's MCP tools as a client sees them with offloading enabled (the
 * default), in the order the server registers them: `tools/list` answers in
 * this order on both protocol generations, `lro_extract` last. One literal for
 * every test that checks the list.
 */
export const ATLATL_TOOLS: readonly string[] = [
  "capture_memory",
  "capture_memories",
  "get_memory",
  "update_memory",
  "forget_memory",
  "recall_memories",
  "search_memories",
  "list_memories",
  "inject_context",
  "lro_extract",
];
