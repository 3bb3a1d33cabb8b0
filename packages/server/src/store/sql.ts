/** SQL text both backends build alike. */

/** ` WHERE a AND b` or the empty string. */
export function whereClause(conditions: readonly string[]): string {
  return conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`;
}
