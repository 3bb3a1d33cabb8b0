import { readFileSync } from "node:fs";

/**
 * The ids of the first `count` records of an offload file (after its header
 * line), one JSON value per line: what `lro_extract` prints for `.id` over
 * those records.
 */
export function firstIds(path: string, count: number): string {
  return readFileSync(path, "utf8")
    .split("\n")
    .slice(1, 1 + count)
    .map((l) => `${JSON.stringify(JSON.parse(l).id)}\n`)
    .join("");
}
