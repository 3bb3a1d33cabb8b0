/**
 * E3's query metrics. An extraction query is a `bash` command that touches the
 * offload file, or an `lro_extract` call. The library's recipes share one
 * shape, `tail -n +2 FILE | jq [flags] 'filter'`; a query scores four
 * features of that shape (skips the header line, uses jq, selects or projects
 * record fields, composes a pipeline). Pattern alignment is the mean feature
 * score (0-1); a query is library-aligned when it both skips the header and
 * uses jq, and goal achievement is the share of extraction queries that are.
 * `lro_extract` runs the library's engine, which skips the header itself: a
 * recipe call scores 1, a custom query 0.75 plus 0.25 when it selects fields.
 */
import type { Message } from "../models/types.js";

interface QueryScore {
  text: string;
  alignment: number;
  aligned: boolean;
}

const HEADER = /tail\s+-n\s*\+2|sed\s+(-n\s+)?['"]?(1d|2,\$p)|lro_header|NR\s*>\s*1/;
const JQ = /\bjq\b/;
const FIELDS =
  /select\s*\(|\.(id|namespace|priority|extensions|content|title|memory_type|tags|provenance)\b/;
const PIPE = /\|/;

function scoreShellQuery(command: string): QueryScore {
  const header = HEADER.test(command);
  const jq = JQ.test(command);
  const features = [header, jq, FIELDS.test(command), PIPE.test(command)];
  return {
    text: command,
    alignment: features.filter(Boolean).length / features.length,
    aligned: header && jq,
  };
}

export function extractionQueries(
  messages: readonly Message[],
  filePath: string | undefined,
): QueryScore[] {
  if (!filePath) return [];
  const base = filePath.slice(filePath.lastIndexOf("/") + 1);
  const out: QueryScore[] = [];
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const c of m.toolCalls) {
      const a = c.arguments ?? {};
      if (c.name === "bash" && typeof a.command === "string") {
        if (a.command.includes(base) || /\*\.jsonl|\.jsonl\b/.test(a.command))
          out.push(scoreShellQuery(a.command));
      } else if (c.name === "lro_extract") {
        const custom = typeof a.query === "string";
        const alignment = custom ? 0.75 + (FIELDS.test(a.query as string) ? 0.25 : 0) : 1;
        out.push({ text: c.rawArguments, alignment, aligned: true });
      }
    }
  }
  return out;
}
