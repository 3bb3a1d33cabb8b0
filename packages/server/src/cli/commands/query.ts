import type { Command } from "commander";
import { toRecord } from "../../model/detail.js";
import type { Memory } from "../../model/memory.js";
import type { FilterInput } from "../../services/args.js";
import { renderTable, truncate } from "../table.js";
import { withApp } from "../with-app.js";

interface QueryOptions {
  namespace?: string;
  type?: "semantic" | "episodic" | "procedural";
  tag?: string[];
  limit: number;
  json?: boolean;
}

function filterOf(opts: QueryOptions): FilterInput {
  return { namespace: opts.namespace, memory_type: opts.type, tags: opts.tag };
}

/** A table for people or medium-detail JSON lines for scripts. */
function print(
  rows: { memory: Memory; score?: number }[],
  opts: QueryOptions,
  nextCursor: string | null,
): void {
  if (opts.json) {
    for (const r of rows) {
      const record = toRecord(r.memory, "medium");
      process.stdout.write(
        `${JSON.stringify(r.score === undefined ? record : { ...record, score: r.score })}\n`,
      );
    }
    return;
  }
  const withScore = rows.some((r) => r.score !== undefined);
  const headers = [...(withScore ? ["score"] : []), "id", "type", "namespace", "created", "title"];
  const body = rows.map((r) => [
    ...(withScore ? [(r.score ?? 0).toFixed(3)] : []),
    r.memory.id.slice(0, 8),
    r.memory.memory_type,
    r.memory.namespace,
    r.memory.created.slice(0, 10),
    truncate(r.memory.title, 60),
  ]);
  process.stdout.write(`${renderTable(headers, body)}\n`);
  process.stdout.write(
    `\n${rows.length} shown${nextCursor ? " (more exist: raise --limit)" : ""}\n`,
  );
}

/** `atlatl recall [QUERY]`: ranked recall. */
export async function runRecall(query: string, opts: QueryOptions, cmd: Command): Promise<void> {
  await withApp(cmd, async ({ services }) => {
    const { hits, next_cursor } = await services.recall.recall({
      query,
      filter: filterOf(opts),
      limit: opts.limit,
    });
    print(hits, opts, next_cursor);
  });
}

/** `atlatl search QUERY`: full-text search in the query language of `store/query-syntax.ts`. */
export async function runSearch(query: string, opts: QueryOptions, cmd: Command): Promise<void> {
  await withApp(cmd, async ({ services }) => {
    const { hits, next_cursor } = await services.search.search({
      query,
      filter: filterOf(opts),
      limit: opts.limit,
    });
    print(hits, opts, next_cursor);
  });
}

/** `atlatl list`: newest first by default. */
export async function runList(
  opts: QueryOptions & { sort: "created" | "modified" | "title"; order: "asc" | "desc" },
  cmd: Command,
): Promise<void> {
  await withApp(cmd, async ({ services }) => {
    const { memories, next_cursor } = await services.list.list({
      filter: filterOf(opts),
      sort: opts.sort,
      order: opts.order,
      limit: opts.limit,
    });
    print(
      memories.map((memory) => ({ memory })),
      opts,
      next_cursor,
    );
  });
}
