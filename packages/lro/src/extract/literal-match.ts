/**
 * `test($pattern; "i")` without a regex engine, for the common case where the
 * pattern is a plain word: jq's Oniguruma folds case by Unicode rules, under
 * which a handful of non-ASCII characters match ASCII letters (`ß` matches
 * `ss`, the Kelvin sign matches `k`, `ﬁ` matches `fi`, ...). A literal ASCII
 * pattern can match only through ASCII letters or those characters, so a text
 * free of them is decided exactly by an ASCII case-insensitive substring test;
 * any other case goes to jq.
 */

/** Characters no Oniguruma (Perl_NT syntax) regex treats specially outside a class. */
const PLAIN_PATTERN = /^[A-Za-z0-9 _\-,:;'"/@!%&=<>~#]*$/;

/**
 * Non-ASCII characters whose Unicode case folding (CaseFolding.txt, C and F)
 * contains an ASCII letter, with those letters: ß ẞ İ ŉ ſ ǰ ẖ ẗ ẘ ẙ ẚ K ﬀ ﬁ ﬂ ﬃ
 * ﬄ ﬅ ﬆ. Only through them can a non-ASCII character take part in matching
 * an ASCII pattern, and only when the pattern contains one of their letters.
 */
const FOLD_LETTERS: Readonly<Record<string, string>> = {
  "\u00df": "s",
  "\u1e9e": "s",
  "\u0130": "i",
  "\u0149": "n",
  "\u017f": "s",
  "\u01f0": "j",
  "\u1e96": "h",
  "\u1e97": "t",
  "\u1e98": "w",
  "\u1e99": "y",
  "\u1e9a": "a",
  "\u212a": "k",
  "\ufb00": "f",
  "\ufb01": "fi",
  "\ufb02": "fl",
  "\ufb03": "fi",
  "\ufb04": "fl",
  "\ufb05": "st",
  "\ufb06": "st",
};
const FOLDS_TO_ASCII = /[\u00df\u1e9e\u0130\u0149\u017f\u01f0\u1e96-\u1e9a\u212a\ufb00-\ufb06]/g;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
const ASCII_ONLY = /^[\u0000-\u007f]*$/;

/**
 * A case-insensitive matcher equal to jq's `test($pattern; "i")` on strings, or
 * undefined when `pattern` is not a plain ASCII word the fast path can decide.
 * The matcher returns undefined for a text it cannot decide exactly.
 */
export function literalMatcher(
  pattern: string,
): ((text: string) => boolean | undefined) | undefined {
  if (!PLAIN_PATTERN.test(pattern)) return undefined;
  const needle = pattern.toLowerCase();
  // Special characters whose letters the pattern lacks behave like any other non-ASCII one.
  const relevant = (c: string) => [...(FOLD_LETTERS[c] ?? "")].some((l) => needle.includes(l));
  return (text) => {
    if (ASCII_ONLY.test(text)) return text.toLowerCase().includes(needle);
    for (const c of text.match(FOLDS_TO_ASCII) ?? []) if (relevant(c)) return undefined;
    // Lower-case ASCII letters only: other characters cannot equal an ASCII one.
    return text.replace(/[A-Z]+/g, (s) => s.toLowerCase()).includes(needle);
  };
}
