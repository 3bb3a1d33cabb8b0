/**
 * The MCP wire types `@atlatl/lro/mcp` speaks, as LRO's own structural types,
 * so that its published declarations need no SDK: a host on SDK 1.x
 * (`@modelcontextprotocol/sdk`) or on 2.x (`@modelcontextprotocol/server`)
 * type-checks against them with only its own SDK installed.
 *
 * What LRO hands out (results, a tool definition, resources) is written to be
 * assignable to both lines' types; what it takes in is wide enough for both
 * lines' values ({@link AnyCallToolResult}: 2.x lets `structuredContent` be
 * any JSON value, 1.x an object). Type aliases, not interfaces, so that they
 * are assignable to the SDKs' index-signature types.
 */

/** `_meta` of a result, content block or request. */
export type McpMeta = { [key: string]: unknown };

/** A JSON value (tool schemas). */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** Content annotations. */
export type Annotations = {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
};

/** An icon of a resource, tool or implementation. */
export type Icon = {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
};

/** Text content. */
export type TextContent = {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: McpMeta;
};

/** Image content (base64 `data`). */
export type ImageContent = {
  type: "image";
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: McpMeta;
};

/** Audio content (base64 `data`). */
export type AudioContent = {
  type: "audio";
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: McpMeta;
};

/** The metadata of a resource (as listed, or linked from a tool result). */
export type Resource = {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: McpMeta;
};

/** A link to a resource in a tool result. */
export type ResourceLink = Resource & { type: "resource_link" };

/** Text contents of a resource. */
export type TextResourceContents = {
  uri: string;
  text: string;
  mimeType?: string;
  _meta?: McpMeta;
};

/** Binary contents of a resource (base64 `blob`). */
export type BlobResourceContents = {
  uri: string;
  blob: string;
  mimeType?: string;
  _meta?: McpMeta;
};

/** A resource embedded in a tool result. */
export type EmbeddedResource = {
  type: "resource";
  resource: TextResourceContents | BlobResourceContents;
  annotations?: Annotations;
  _meta?: McpMeta;
};

/** One block of a tool result's `content`. */
export type ContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLink
  | EmbeddedResource;

/** A tool result as LRO returns it (assignable to both SDK lines' `CallToolResult`). */
export type CallToolResult = {
  [key: string]: unknown;
  content: ContentBlock[];
  structuredContent?: { [key: string]: unknown };
  isError?: boolean;
  _meta?: McpMeta;
};

/**
 * A tool result of either SDK line, as LRO takes it in: like
 * {@link CallToolResult}, with `structuredContent` any JSON value (2.x).
 */
export type AnyCallToolResult = {
  [key: string]: unknown;
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: McpMeta;
};

/** A JSON Schema of a tool's input or output (an object schema). */
export type ToolSchema = {
  [key: string]: unknown;
  type: "object";
  properties?: { [key: string]: JsonObject };
  required?: string[];
};

/** A tool definition as LRO returns it (`lro_extract`'s). */
export type Tool = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: ToolSchema;
  outputSchema?: ToolSchema;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
  icons?: Icon[];
  _meta?: McpMeta;
};

/** A tool definition as LRO takes it in (any SDK line's `Tool`; passed on untouched). */
export type ToolLike = { name: string; inputSchema: object };

/** A resource template as LRO lists it. */
export type ResourceTemplate = {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: McpMeta;
};

/** A page of a `resources/list` result. */
export type ListResourcesResult = {
  [key: string]: unknown;
  resources: Resource[];
  nextCursor?: string;
  _meta?: McpMeta;
};

/** A `resources/read` result. */
export type ReadResourceResult = {
  [key: string]: unknown;
  contents: (TextResourceContents | BlobResourceContents)[];
  _meta?: McpMeta;
};

/** A request LRO's low-level handlers receive and pass on to an upstream (unknown keys kept). */
type McpRequest<Method extends string, Params> = {
  [key: string]: unknown;
  method: Method;
  params: Params & { [key: string]: unknown; _meta?: McpMeta };
};

/** A paginated list request. */
type McpListRequest<Method extends string> = {
  [key: string]: unknown;
  method: Method;
  params?: { [key: string]: unknown; cursor?: string; _meta?: McpMeta };
};

/** `tools/list`. */
export type ListToolsRequest = McpListRequest<"tools/list">;
/** `tools/call`. */
export type CallToolRequest = McpRequest<
  "tools/call",
  { name: string; arguments?: { [key: string]: unknown }; task?: { ttl?: number } }
>;
/** `resources/list`. */
export type ListResourcesRequest = McpListRequest<"resources/list">;
/** `resources/templates/list`. */
export type ListResourceTemplatesRequest = McpListRequest<"resources/templates/list">;
/** `resources/read`. */
export type ReadResourceRequest = McpRequest<"resources/read", { uri: string }>;

/**
 * A page of a `tools/list` result as an upstream returns it (any SDK line's
 * tools, passed on untouched).
 */
export type ListToolsResultLike = { tools: object[]; nextCursor?: string };

/** A page of a `resources/templates/list` result as an upstream returns it. */
export type ListResourceTemplatesResultLike = {
  resourceTemplates: object[];
  nextCursor?: string;
};

/** A page of a `resources/list` result as an upstream returns it. */
export type ListResourcesResultLike = { resources: object[]; nextCursor?: string };

/** A `resources/read` result as an upstream returns it. */
export type ReadResourceResultLike = { contents: object[] };
