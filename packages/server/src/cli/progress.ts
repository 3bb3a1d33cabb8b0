import cliProgress from "cli-progress";

/** Progress reporting for long CLI jobs: a bar on a terminal, nothing otherwise. */
interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

/**
 * A progress bar on stderr when stderr is a terminal; a silent no-op otherwise
 * (pipes, CI, and stdio servers, whose stdout is the protocol channel).
 */
export function startProgress(label: string, total: number | undefined): Progress {
  if (!process.stderr.isTTY) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total ?? 0, 0);
  return {
    update(done, newTotal) {
      if (newTotal !== undefined) bar.setTotal(newTotal);
      bar.update(done);
    },
    stop() {
      bar.stop();
    },
  };
}
