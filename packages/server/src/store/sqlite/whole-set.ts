/**
 * Whole-set reads of the SQLite store by keyset pages over the paged reads.
 * Simple on purpose (a placeholder for the single-pass readers of the
 * streaming work); each page continues strictly after the last hit.
 */
import type {
  ListedMemory,
  ListQuery,
  RankedHit,
  RankPosition,
  RankQuery,
  TextHit,
  TextQuery,
} from "../store.js";

const PAGE = 1000;

async function* pages<H extends { position: P }, P>(
  read: (after: P | undefined) => Promise<H[]>,
): AsyncIterable<H> {
  let after: P | undefined;
  for (;;) {
    const page = await read(after);
    yield* page;
    const last = page[page.length - 1];
    if (!last || page.length < PAGE) return;
    after = last.position;
  }
}

export function rankAllPaged(
  rank: (q: RankQuery) => Promise<RankedHit[]>,
  query: Omit<RankQuery, "limit" | "after">,
): AsyncIterable<RankedHit> {
  return pages<RankedHit, RankPosition>((after) => rank({ ...query, limit: PAGE, after }));
}

export function searchAllPaged(
  search: (q: TextQuery) => Promise<TextHit[]>,
  query: Omit<TextQuery, "limit" | "after">,
): AsyncIterable<TextHit> {
  return pages<TextHit, RankPosition>((after) => search({ ...query, limit: PAGE, after }));
}

export function listAllPaged(
  list: (q: ListQuery) => Promise<ListedMemory[]>,
  query: Omit<ListQuery, "limit" | "after">,
): AsyncIterable<ListedMemory> {
  return pages<ListedMemory, ListedMemory["position"]>((after) =>
    list({ ...query, limit: PAGE, after }),
  );
}
