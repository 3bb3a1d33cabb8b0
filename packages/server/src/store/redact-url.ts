/** Printing connection URLs without their secrets. */

/** `url` with its password replaced by `***` (for printing). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}
