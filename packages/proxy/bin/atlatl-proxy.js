#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm install` (the root `prepare` script).
import "../dist/cli/main.js";
