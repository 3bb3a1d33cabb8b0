/**
 * Which profile a file belongs to, from its header line: `profile` names it;
 * a header without one is a memory file (the specification's eight fields).
 */
import type { OffloadHeader } from "../types.js";
import { MEMORY_PROFILE, memoryProfile } from "./memory/memory-profile.js";
import type { AnyProfile } from "./profile.js";
import { recordsProfile } from "./records/records-profile.js";
import { sectionsProfile } from "./sections/sections-profile.js";

/** The built-in profiles. */
export const BUILTIN_PROFILES: readonly AnyProfile[] = [
  memoryProfile as AnyProfile,
  recordsProfile as AnyProfile,
  sectionsProfile as AnyProfile,
];

/** Names of the built-in profiles. */
export type BuiltinProfileName = "memory" | "records" | "sections";

/** The profile named `name` among `profiles` (default: the built-in ones). */
export function profileByName(
  name: string,
  profiles: readonly AnyProfile[] = BUILTIN_PROFILES,
): AnyProfile | undefined {
  return profiles.find((p) => p.name === name);
}

/** The profile name a header declares (`memory` when it declares none). */
export function headerProfileName(header: OffloadHeader): string {
  const name = (header as { profile?: unknown }).profile;
  return typeof name === "string" ? name : MEMORY_PROFILE;
}
