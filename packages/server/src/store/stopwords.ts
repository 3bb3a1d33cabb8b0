/**
 * English stopwords: words too common to say what a query is about. A query
 * matches on its other words ("which note mentions the zephyrine valve?"
 * searches note, mentions, zephyrine, valve), so a question does not match
 * every memory that shares its "the" or "which"; a query of stopwords only
 * ("to be or not to be") keeps them all. The index keeps every word (phrases
 * such as "the valve" still match exactly). Snowball's English list, with the
 * pieces contractions split into (don't: don, t).
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are aren as at be because been before " +
    "being below between both but by can couldn could d did didn do does doesn doing don down during " +
    "each few for from further had hadn has hasn have haven having he her here hers herself him " +
    "himself his how i if in into is isn it its itself just ll m me more most mustn my myself no nor " +
    "not now of off on once only or other our ours ourselves out over own re s same shan she should " +
    "shouldn so some such t than that the their theirs them themselves then there these they this " +
    "those through to too under until up ve very was wasn we were weren what when where which while " +
    "who whom why will with won would wouldn you your yours yourself yourselves"
  ).split(" "),
);
