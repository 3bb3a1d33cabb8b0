/**
 * A numbered extraction recipe as data, whatever the profile: the jq program
 * refers to its parameters as jq variables (`$namespace`, `$value`), so
 * `lro_extract` passes them with `--arg` semantics and never splices text; the
 * shell command inlines them as JSON string literals.
 */
import { shellQuote, shellWord } from "./shell-quote.js";

/** One recipe of a profile. */
export interface RecipeSpec<P extends string = string> {
  /** 1-based number, as the descriptor lists it and `lro_extract` takes it. */
  number: number;
  description: string;
  /** jq program run on each record line (or on the array of them when `slurp`). */
  filter: string;
  /** `jq -s`: the filter sees one array of every record. */
  slurp: boolean;
  /** `jq -r`: strings are printed raw. */
  raw: boolean;
  /** The jq variables the filter uses. */
  params: readonly P[];
  /** An example value per parameter, shown in error messages and guidance. */
  examples?: Readonly<Partial<Record<P, string>>>;
}

/**
 * The jq program with every parameter written in as a JSON string literal, for
 * a shell user: `values[name]`, else the spec's example, else the name itself.
 */
export function inlineJqParams(
  spec: RecipeSpec,
  values: Readonly<Partial<Record<string, string>>> = {},
): string {
  let filter = spec.filter;
  for (const name of spec.params) {
    const examples = spec.examples as Readonly<Record<string, string | undefined>> | undefined;
    const value = values[name] ?? examples?.[name] ?? name;
    filter = filter.replaceAll(new RegExp(`\\$${name}\\b`, "g"), () => JSON.stringify(value));
  }
  return filter;
}

/**
 * The shell command of a recipe against `filePath`:
 * `tail -n +2 <path> | jq [-r] [-s] '<filter>'`, every word safe for POSIX sh
 * (the path quoted when it has any character a shell would interpret).
 */
export function renderJqCommand(
  spec: RecipeSpec,
  filePath: string,
  values: Readonly<Partial<Record<string, string>>> = {},
): string {
  return renderJqPipeline(spec, shellWord(filePath), values);
}

/** The shell variable generic descriptors' recipes read their file from (`F=<path>` first). */
export const RECIPE_FILE_VAR = "F";

/** `F=<path>`: the assignment a shell runs before recipes rendered on {@link RECIPE_FILE_VAR}. */
export function recipeFileAssignment(filePath: string): string {
  return `${RECIPE_FILE_VAR}=${shellWord(filePath)}`;
}

/**
 * The first line of a generic descriptor's guidance when its recipes read
 * `"$F"`: `F=<path>` (the path written once, not in every recipe), or undefined.
 */
export function guidanceFileLine(descriptor: { guidance: string }): string | undefined {
  const first = descriptor.guidance.split("\n", 1)[0] as string;
  return first.startsWith(`${RECIPE_FILE_VAR}=`) ? first : undefined;
}

/**
 * The recipe as {@link renderJqCommand} with `"$F"` for the file: a long path
 * written once (in `F=<path>`) instead of in every recipe.
 */
export function renderJqCommandOnVar(
  spec: RecipeSpec,
  values: Readonly<Partial<Record<string, string>>> = {},
): string {
  return renderJqPipeline(spec, `"$${RECIPE_FILE_VAR}"`, values);
}

function renderJqPipeline(
  spec: RecipeSpec,
  fileWord: string,
  values: Readonly<Partial<Record<string, string>>>,
): string {
  const flags = `${spec.raw ? " -r" : ""}${spec.slurp ? " -s" : ""}`;
  return `tail -n +2 ${fileWord} | jq${flags} ${shellQuote(inlineJqParams(spec, values))}`;
}
