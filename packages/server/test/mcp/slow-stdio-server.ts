/**
 * A test fixture process: atlatl's stdio serving (`serveStdioApp`, what
 * `atlatl serve` runs) over a store whose whole-set recall is slowed down:
 * it pauses `ATLATL_TEST_DELAY_MS` before each batch of 5 hits, so a recall
 * of 30 memories takes 6 s at 1000 ms. Store and offload directory from the
 * usual `ATLATL_*` environment.
 */
import { openApp } from "../../src/app/open-app.js";
import { serveStdioApp } from "../../src/cli/commands/serve-stdio.js";
import { createServices } from "../../src/services/create-services.js";
import { slowed } from "./slowed-store.js";

const delayMs = Number(process.env.ATLATL_TEST_DELAY_MS ?? "1000");

const app = await openApp({ logEvents: false });
serveStdioApp({ ...app, services: createServices(slowed(app.store, delayMs)) });
