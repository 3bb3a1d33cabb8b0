/**
 * The client of an OpenAI-compatible `POST {url}/embeddings`. Plain `fetch`,
 * not the `openai` package: the request is one POST, and the package's
 * defaults work against the bound this client promises: it asks for
 * `encoding_format: "base64"` unless told otherwise (servers that answer
 * floats anyway, or mis-decode base64, have broken its users: ollama/ollama
 * #6934, openclaw/openclaw#45985), and it retries twice with backoff, so one
 * call could wait three timeouts. Here a request waits `timeoutMs` at most,
 * once, and every failure is an `EMBEDDINGS_UNAVAILABLE` naming the endpoint,
 * what happened and what to do.
 */
import { CodedError } from "@atlatl/lro";
import { redactUrl } from "@atlatl/lro/node";
import type { EmbeddingsConfig } from "../config/embeddings-config.js";

/** Longest text sent for one memory, in characters (the head of long content carries its topic). */
const MAX_EMBED_CHARS = 8_000;

/** A failure of the embeddings endpoint, or vectors that do not fit the store. */
export class EmbeddingsError extends CodedError<"EMBEDDINGS_UNAVAILABLE" | "EMBEDDINGS_MISMATCH"> {
  constructor(
    code: "EMBEDDINGS_UNAVAILABLE" | "EMBEDDINGS_MISMATCH",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.name = "EmbeddingsError";
  }
}

/** Turns texts into unit-length vectors of the configured model. */
export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  /** One vector per text, in order; batched by the configured size. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** See the module comment. */
export class EmbeddingsClient implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  private readonly endpoint: string;

  constructor(private readonly config: EmbeddingsConfig) {
    this.model = config.model;
    this.dimensions = config.dimensions;
    this.endpoint = `${config.url}/embeddings`;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.config.batchSize) {
      out.push(...(await this.request(texts.slice(i, i + this.config.batchSize), signal)));
    }
    return out;
  }

  private async request(input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const where = redactUrl(this.endpoint);
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.config.apiKey !== "") headers.authorization = `Bearer ${this.config.apiKey}`;
    let body: unknown;
    try {
      const response = await fetch(this.endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify({
          model: this.model,
          input: input.map((t) => t.slice(0, MAX_EMBED_CHARS)),
          encoding_format: "float",
        }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const text = await response.text();
      if (!response.ok) {
        throw unavailable(
          `the embeddings endpoint ${where} answered HTTP ${response.status}: ${text.slice(0, 200)}; check [embeddings] model (${this.model}) and api_key`,
        );
      }
      body = JSON.parse(text);
    } catch (err) {
      if (err instanceof EmbeddingsError) throw err;
      if (signal?.aborted) throw signal.reason;
      const timedOut = timeout.aborted;
      throw unavailable(
        timedOut
          ? `the embeddings endpoint ${where} did not answer within ${this.config.timeoutMs / 1000} s ([embeddings] timeout_seconds); check that it is running, or retry`
          : `the embeddings endpoint ${where} cannot be reached (${describe(err)}); check that it is running and [embeddings] url`,
        err,
      );
    }
    return this.vectors(body, input.length, where);
  }

  /** The response's vectors, in input order, checked and scaled to unit length. */
  private vectors(body: unknown, count: number, where: string): Float32Array[] {
    const data = (body as { data?: unknown })?.data;
    if (!Array.isArray(data) || data.length !== count) {
      throw unavailable(
        `the embeddings endpoint ${where} answered without ${count} embeddings (not an OpenAI-compatible /embeddings response)`,
      );
    }
    const out = new Array<Float32Array>(count);
    data.forEach((item: { index?: unknown; embedding?: unknown }, i) => {
      const at = typeof item?.index === "number" ? item.index : i;
      const values = item?.embedding;
      if (!Array.isArray(values) || values.some((x) => typeof x !== "number")) {
        throw unavailable(
          `the embeddings endpoint ${where} answered an embedding that is not a list of numbers`,
        );
      }
      if (values.length !== this.dimensions) {
        throw new EmbeddingsError(
          "EMBEDDINGS_MISMATCH",
          `model ${this.model} at ${where} returns ${values.length}-dimensional vectors, but [embeddings] dimensions is ${this.dimensions}; set dimensions to ${values.length}`,
        );
      }
      out[at] = unit(values as number[]);
    });
    return out;
  }
}

/** `values` scaled to length 1 (cosine similarity is then a dot product); a zero vector stays zero. */
export function unit(values: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += (values[i] as number) ** 2;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = norm > 0 ? (values[i] as number) / norm : 0;
  return out;
}

function unavailable(message: string, cause?: unknown): EmbeddingsError {
  return new EmbeddingsError("EMBEDDINGS_UNAVAILABLE", message, { cause });
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (typeof cause?.code === "string") return cause.code;
  return err instanceof Error ? err.message : String(err);
}
