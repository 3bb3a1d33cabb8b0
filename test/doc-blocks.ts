/**
 * The fenced code blocks of a Markdown document, each with the test marker on
 * the line before it, if any: `<!-- {name}: kind (reason) -->` (`readme-test`
 * in README.md, `doc-test` in docs/*.md and the packages' READMEs).
 */
import { join } from "node:path";

/** One fenced block: its language, first line (1-based, the fence), text and marker. */
export interface DocBlock {
  lang: string;
  line: number;
  code: string;
  marker?: { kind: string; reason: string };
}

export function docBlocks(text: string, markerName: string): DocBlock[] {
  const lines = text.split("\n");
  const marker = new RegExp(`^<!-- ${markerName}: (\\S+) \\((.+)\\) -->$`);
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    // Exactly three backticks and a language: a four-backtick fence is prose quoting a block.
    const open = /^```(\w+)$/.exec(lines[i] as string);
    if (!open) continue;
    const end = lines.indexOf("```", i + 1);
    const m = marker.exec(lines[i - 1] ?? "");
    blocks.push({
      lang: open[1] as string,
      line: i + 1,
      code: lines.slice(i + 1, end).join("\n"),
      ...(m ? { marker: { kind: m[1] as string, reason: m[2] as string } } : {}),
    });
    i = end;
  }
  return blocks;
}

/** A child's environment: no npm_* settings of this run, no user config. */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.toLowerCase().startsWith("npm_") && !k.startsWith("ATLATL_")) {
      env[k] = v;
    }
  }
  return { ...env, ATLATL_CONFIG: "", ...extra };
}

/** HOME and every per-user location under `home`, whatever this machine sets. */
export function homeEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    CODEX_HOME: join(home, ".codex"),
  };
}
