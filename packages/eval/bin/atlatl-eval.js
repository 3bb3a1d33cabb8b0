#!/usr/bin/env node
import { main } from "../dist/cli.js";

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`atlatl-eval: ${err?.stack ?? err}\n`);
    process.exitCode = 2;
  },
);
