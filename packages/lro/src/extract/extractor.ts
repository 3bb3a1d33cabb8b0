/**
 * Native extraction from offload files (the specification's "Native Extraction
 * via MCP Tools"), framework-free: confine and open the file, load it (cached),
 * run a standard recipe (checked fast path, else jq) or a custom jq filter in
 * the sandboxed engine, apply `limit` and raw printing, and offload the output
 * again when it is itself too large. Never throws: failures are values.
 *
 * Output format: jq's own text, as the jq CLI prints it with `-c` (one JSON
 * value per line), strings printed raw for raw recipes (1) and `raw` queries
 * (`-r`). The values are exactly those of `tail -n +2 FILE | jq ...`.
 */

import type { OffloadConfig } from "../config/offload-config.js";
import { LroError } from "../errors.js";
import type { CallEvents } from "../events/events.js";
import type { OffloadStoreBinding } from "../offload-store/offload-store.js";
import type { AnyProfile } from "../profiles/profile.js";
import { BUILTIN_PROFILES, headerProfileName, profileByName } from "../profiles/registry.js";
import type { RecipeSpec } from "../recipes/recipe-spec.js";
import { openOffloadFile } from "./confine.js";
import {
  checkRecipeParams,
  type ExtractArgs,
  type ExtractRequest,
  validateExtractArgs,
} from "./extract-args.js";
import { type RegexOracle, runFastRecipe } from "./fast-recipes.js";
import { JqEngine, type JsonValue } from "./jq-engine.js";
import { type LoadedOffload, OffloadFileCache } from "./offload-reader.js";

/** Where the output went when it was too large to return (`onEvent`: the extraction's listener). */
export interface ReoffloadInput extends CallEvents {
  /** The output values (`jq -c` lines), after `limit`. */
  lines: readonly string[];
  /** When the output is one array and its elements' texts are known (fast path). */
  elements?: readonly string[] | undefined;
  /** The source file. */
  source: LoadedOffload;
  /** What ran: `recipe 3` or the query text. */
  description: string;
  /** Detail level for the derived file's header, when its lines are records. */
  detail: string;
  /** The output as it would be returned inline (what the threshold judges). */
  text: string;
}

/** A too-large output written to a derived file: the text returned instead. */
export interface ReoffloadOutcome {
  /** The descriptor (JSON text) to return in place of the output. */
  text: string;
  /** The derived file(s). */
  paths: string[];
}

/** Writes a too-large output to a derived file; undefined means "return it inline". */
export type Reoffload = (input: ReoffloadInput) => Promise<ReoffloadOutcome | undefined>;

/** Options of an {@link LroExtractor}. */
export interface LroExtractorOptions {
  /** Output directory, TTL, threshold (and `enabled`, which gates re-offloading). */
  config: Pick<OffloadConfig, "outputDir" | "ttlSeconds" | "thresholdTokens"> &
    Partial<Pick<OffloadConfig, "enabled" | "filePrefix">>;
  /** Resource URI prefix accepted as `file_path` (default `atlatl://offload/`). */
  resourcePrefix?: string;
  /** The jq engine (default: a new one with default limits). */
  engine?: JqEngine;
  /**
   * Whose extractions these are (e.g. a server's token): a shared engine
   * shares its workers fairly between principals. Set by the server that
   * knows the caller; default: one principal for every run.
   */
  principal?: string;
  /** Parsed-file cache (default: a new one). */
  cache?: OffloadFileCache;
  /** Clock, epoch ms (expiry). */
  now?: () => number;
  /** Re-offloading of large outputs (without it, large outputs are returned inline). */
  reoffload?: Reoffload;
  /** Largest file read (default: the engine's input limit). */
  maxFileBytes?: number;
  /** Profiles whose files' numbered recipes are known (default: memory, records, sections). */
  profiles?: readonly AnyProfile[];
  /** The shared offload store and the caller's principal: files other instances wrote are fetched. */
  store?: OffloadStoreBinding | undefined;
}

/** A successful extraction. */
export interface ExtractSuccess {
  ok: true;
  /** What to show: jq's output text, or the descriptor of the derived file. */
  text: string;
  /** Output values returned (after `limit`). */
  count: number;
  /**
   * Output values the filter produced, or null when jq stopped at `limit`
   * (only then is the total unknown).
   */
  total: number | null;
  /** `limit` cut the output. */
  truncated: boolean;
  /** Which engine answered. */
  engine: "fast" | "jq";
  /** The source file. */
  file: { path: string; name: string; detail: string };
  /** Set when the output was written to a derived file instead of returned. */
  offloaded?: { paths: string[] };
}

/** Outcome of {@link LroExtractor.extract}. */
export type ExtractResult = ExtractSuccess | { ok: false; error: LroError };

/** The record lines of a file, parsed (for profiles whose recipes depend on the data). */
function parseRecordLines(source: LoadedOffload): readonly object[] {
  const fast = source.fast();
  if (fast) return fast.records;
  const out: object[] = [];
  for (const line of source.body.toString("utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      out.push(JSON.parse(line) as object);
    } catch {
      throw new LroError(
        "INVALID_ARGUMENT",
        `${source.name} has a line that is not JSON, so its recipes cannot be derived; pass a jq query instead`,
      );
    }
  }
  return out;
}

/** Print `jq -c` lines as jq would with `-r` when `raw`: strings without quotes. */
export function renderOutput(lines: readonly string[], raw: boolean): string {
  if (lines.length === 0) return "";
  if (!raw) return `${lines.join("\n")}\n`;
  let out = "";
  for (const line of lines)
    out += `${line.startsWith('"') ? (JSON.parse(line) as string) : line}\n`;
  return out;
}

/** The engine behind `lro_extract`: one per server (it owns a jq worker). */
export class LroExtractor {
  readonly engine: JqEngine;
  readonly cache: OffloadFileCache;
  private readonly options: LroExtractorOptions;
  private readonly ownsEngine: boolean;
  /** The runs' principal, spread into each engine request. */
  private readonly principal: { principal?: string };

  constructor(options: LroExtractorOptions) {
    this.options = options;
    this.principal = options.principal !== undefined ? { principal: options.principal } : {};
    this.ownsEngine = options.engine === undefined;
    this.engine = options.engine ?? new JqEngine();
    this.cache = options.cache ?? new OffloadFileCache();
  }

  /**
   * Run one extraction. Never throws. `call.onEvent` gets the events of its
   * re-offloaded output (besides the offloader's hub).
   */
  async extract(args: ExtractArgs, call: CallEvents = {}): Promise<ExtractResult> {
    try {
      const request = validateExtractArgs(args);
      if (request instanceof LroError) return { ok: false, error: request };
      return await this.run(request, call);
    } catch (err) {
      if (err instanceof LroError) return { ok: false, error: err };
      return {
        ok: false,
        error: new LroError(
          "FILTER_ABORTED",
          `extraction failed: ${(err as Error)?.message ?? err}`,
          {
            cause: err,
          },
        ),
      };
    }
  }

  /** Stop the jq worker if this extractor created it. */
  async close(): Promise<void> {
    if (this.ownsEngine) await this.engine.close();
  }

  private async load(filePath: string): Promise<LoadedOffload> {
    const { config } = this.options;
    const file = await openOffloadFile(filePath, {
      outputDir: config.outputDir,
      ttlSeconds: config.ttlSeconds,
      filePrefix: config.filePrefix,
      resourcePrefix: this.options.resourcePrefix,
      store: this.options.store,
      ...(this.options.now ? { now: this.options.now } : {}),
    });
    try {
      return await this.cache.load(
        file,
        this.options.maxFileBytes ?? this.engine.limits.maxInputBytes,
      );
    } finally {
      await file.handle.close().catch(() => {});
    }
  }

  private async run(request: ExtractRequest, call: CallEvents): Promise<ExtractResult> {
    const source = await this.load(request.filePath);
    const detail = source.header.detail;
    let lines: string[];
    let elements: string[] | undefined;
    let raw: boolean;
    let engine: "fast" | "jq" = "jq";
    let description: string;
    let recordsOut = false;
    let stoppedEarly = false;

    if (request.kind === "recipe") {
      const spec = this.recipeFor(source, request.recipe);
      const paramError = checkRecipeParams(spec, request.params, detail);
      if (paramError) throw paramError;
      raw = spec.raw;
      description = `recipe ${spec.number} (${spec.description})`;
      recordsOut = spec.filter.startsWith("select(") || spec.filter.startsWith("sort_by(");
      const fastData = source.fast();
      const fast = fastData
        ? await runFastRecipe(spec, fastData, request.params, this.oracle)
        : undefined;
      if (fast) {
        lines = fast.lines;
        elements = fast.elements;
        engine = "fast";
      } else {
        lines = await this.jq(source, spec.filter, spec.slurp, request.params, request.limit);
        stoppedEarly = true;
      }
    } else {
      raw = request.raw;
      description = request.query;
      lines = await this.jq(source, request.query, request.slurp, request.params, request.limit);
      stoppedEarly = true;
    }

    const truncated = request.limit !== undefined && lines.length > request.limit;
    // jq was asked for limit + 1 values: past the limit, the true total is unknown.
    const total = truncated && stoppedEarly ? null : lines.length;
    if (truncated) lines = lines.slice(0, request.limit);
    const text = renderOutput(lines, raw);
    const file = { path: source.path, name: source.name, detail };
    const base = { ok: true as const, count: lines.length, total, truncated, engine, file };

    const reoffloaded = await this.maybeReoffload(
      text,
      lines,
      truncated ? undefined : elements,
      source,
      description,
      recordsOut,
      call,
    );
    if (reoffloaded) {
      return { ...base, text: reoffloaded.text, offloaded: { paths: reoffloaded.paths } };
    }
    return { ...base, text };
  }

  /** jq's own verdict on `test($pattern; "i")` for texts the fast path cannot decide. */
  private readonly oracle: RegexOracle = async (texts, pattern) => {
    const result = await this.engine.run({
      input: { key: `oracle:${this.oracleRuns++}`, bytes: Buffer.from(JSON.stringify(texts)) },
      filter: '.[] | test($pattern; "i")',
      args: { pattern },
      ...this.principal,
    });
    if (!result.ok) return undefined;
    return result.lines.map((l) => l === "true");
  };
  private oracleRuns = 0;

  /** Recipe `recipe` of the file's profile (named by its header). */
  private recipeFor(source: LoadedOffload, recipe: number): RecipeSpec {
    const name = headerProfileName(source.header);
    const profile = profileByName(name, this.options.profiles ?? BUILTIN_PROFILES);
    if (!profile?.recipe) {
      throw new LroError(
        "INVALID_ARGUMENT",
        `${source.name} is a ${name} file, which has no numbered recipes; pass a jq query instead (e.g. query=".", limit=20)`,
      );
    }
    const spec = profile.recipe(source.header, recipe, () => parseRecordLines(source));
    if (spec instanceof LroError) throw spec;
    return spec;
  }

  private async jq(
    source: LoadedOffload,
    filter: string,
    slurp: boolean,
    params: Readonly<Record<string, JsonValue>>,
    limit: number | undefined,
  ): Promise<string[]> {
    const result = await this.engine.run({
      input: { key: source.key, bytes: source.body },
      filter,
      slurp,
      args: params,
      ...(limit !== undefined ? { limit: limit + 1 } : {}),
      ...this.principal,
    });
    if (!result.ok) throw result.error;
    return result.lines;
  }

  private async maybeReoffload(
    text: string,
    lines: string[],
    elements: string[] | undefined,
    source: LoadedOffload,
    description: string,
    recordsOut: boolean,
    call: CallEvents,
  ): Promise<ReoffloadOutcome | undefined> {
    const { reoffload } = this.options;
    if (!reoffload) return undefined;
    return reoffload({
      text,
      lines,
      elements,
      source,
      description,
      detail: recordsOut ? source.header.detail : "raw",
      onEvent: call.onEvent,
    });
  }
}
