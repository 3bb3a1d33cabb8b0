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
 * contains an ASCII letter: ß ẞ İ ŉ ſ ǰ ẖ ẗ ẘ ẙ ẚ K ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ.
 */
const FOLDS_TO_ASCII = /[\u00df\u1e9e\u0130\u0149\u017f\u01f0\u1e96-\u1e9a\u212a\ufb00-\ufb06]/;

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
  return (text) => {
    if (ASCII_ONLY.test(text)) return text.toLowerCase().includes(needle);
    if (FOLDS_TO_ASCII.test(text)) return undefined;
    // Lower-case ASCII letters only: other characters cannot equal an ASCII one.
    return text.replace(/[A-Z]+/g, (s) => s.toLowerCase()).includes(needle);
  };
}
