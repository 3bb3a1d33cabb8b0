/**
 * Progress of a long run on stderr (samples done, accuracy so far, tokens,
 * cost), drawn only when stderr is a terminal: logs and pipes stay clean.
 */
import cliProgress from "cli-progress";
import type { SampleScore } from "../score/score.js";

interface Progress {
  start(total: number, skipped: number): void;
  update(score: SampleScore, done: number): void;
  stop(): void;
}

const NONE: Progress = { start() {}, update() {}, stop() {} };

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return NONE;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: "{bar} {value}/{total} samples | accuracy {acc}% | {tokens} tokens | USD {cost}",
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let correct = 0;
  let tokens = 0;
  let cost = 0;
  return {
    start(total) {
      bar.start(total, 0, { acc: "-", tokens: 0, cost: "0.00" });
    },
    update(s, done) {
      correct += s.correct;
      tokens += s.total_tokens;
      cost += s.cost_usd;
      bar.update(done, {
        acc: ((correct / done) * 100).toFixed(1),
        tokens: tokens.toLocaleString("en-US"),
        cost: cost.toFixed(2),
      });
    },
    stop() {
      bar.stop();
    },
  };
}
