/**
 * A reader that closes its end of our stdout (`atlatl list --json | head -1`) has
 * all it wants: the command ends quietly with exit 0 instead of an EPIPE stack trace.
 * `serve` has its own handler (it closes the store and the MCP server first).
 */
export function exitQuietlyOnClosedPipe(): void {
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    process.stderr.write(`atlatl: stdout: ${err.message}\n`);
    process.exit(1);
  });
}
