/**
 * The elements of a top-level JSON array, streamed from a file (`@streamparser/json`),
 * so a `.json` export of any size imports in bounded memory: no whole-file string
 * (V8 caps strings near 512 MiB) and no whole parsed array.
 */
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { Tokenizer, TokenParser } from "@streamparser/json";

/** An array element and its index. */
interface ArrayElement {
  index: number;
  value: unknown;
}

/** Malformed JSON: where (1-based line and column) and what. */
interface JsonSyntaxProblem {
  line: number;
  column: number;
  message: string;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const CHUNK_BYTES = 1 << 16;

/** The first significant character of a file (after a BOM and whitespace), if any. */
export async function firstJsonChar(file: string): Promise<string | undefined> {
  const handle = await open(file, "r");
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const text = head
      .subarray(0, bytesRead)
      .toString("utf8")
      .replace(/^\uFEFF/, "");
    return /\S/.exec(text)?.[0];
  } finally {
    await handle.close();
  }
}

/** What {@link arrayChunks} yields: the elements a chunk completed, or the syntax problem (last). */
export type ArrayChunk =
  | { kind: "elements"; elements: ArrayElement[]; bytesRead: number }
  | { kind: "problem"; problem: JsonSyntaxProblem };

/**
 * Parse `file` as one JSON array and yield the elements completed by each chunk
 * read (the array itself is never built). A syntax problem is yielded last.
 */
async function* arrayChunks(file: string): AsyncGenerator<ArrayChunk> {
  const tokenizer = new Tokenizer();
  const parser = new TokenParser({ paths: ["$.*"], keepStack: false });
  let lastOffset = 0;
  let pending: ArrayElement[] = [];
  tokenizer.onToken = (token) => {
    lastOffset = token.offset;
    parser.write(token);
  };
  parser.onValue = ({ value, key }) => {
    pending.push({ index: Number(key), value });
  };
  const input = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  let first = true;
  let skipped = 0;
  let problem: JsonSyntaxProblem | undefined;
  try {
    for await (const raw of input as AsyncIterable<Buffer>) {
      let chunk = raw;
      if (first && chunk.subarray(0, 3).equals(BOM)) {
        chunk = chunk.subarray(3);
        skipped = 3;
      }
      first = false;
      tokenizer.write(chunk);
      const elements = pending;
      pending = [];
      yield { kind: "elements", elements, bytesRead: input.bytesRead };
    }
    tokenizer.end();
    if (!parser.isEnded) throw new Error("the array is not closed");
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).replace(
      / at position "?\d+"? in state \w+$/,
      "",
    );
    problem = { ...(await lineAt(file, lastOffset + skipped)), message };
  } finally {
    input.destroy();
  }
  if (problem) yield { kind: "problem", problem };
}

/** 1-based line and column of byte `offset` of `file`. */
async function lineAt(file: string, offset: number): Promise<{ line: number; column: number }> {
  let line = 1;
  let lineStart = 0;
  let position = 0;
  const input = createReadStream(file, {
    highWaterMark: CHUNK_BYTES,
    end: Math.max(0, offset - 1),
  });
  for await (const chunk of input as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      line++;
      lineStart = position + i + 1;
    }
    position += chunk.length;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Check that `file` is one well-formed JSON array (a first pass that keeps
 * nothing), then yield its elements chunk by chunk (a second pass). A malformed
 * file yields only its problem, so an import takes all of a file or none of it.
 */
export async function* readJsonArray(file: string): AsyncGenerator<ArrayChunk> {
  for await (const chunk of arrayChunks(file)) {
    if (chunk.kind === "problem") {
      yield chunk;
      return;
    }
  }
  yield* arrayChunks(file);
}
