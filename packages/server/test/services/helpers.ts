import { afterEach, beforeEach } from "vitest";
import { createServices, type Services } from "../../src/services/create-services.js";
import { isServiceError } from "../../src/services/errors.js";
import type { MemoryStore } from "../../src/store/store.js";
import { BACKENDS, type TestBackend } from "../backends/backends.js";

/** A controllable clock: starts at `start`, `advance(ms)` moves it. */
export function testClock(start = Date.UTC(2025, 5, 1, 12)) {
  let t = start;
  return {
    now: () => new Date(t),
    advance: (ms: number) => {
      t += ms;
    },
  };
}

/** A fresh, empty store of `backend` (default SQLite in memory) and services per test. */
export function useServices(backend: TestBackend = BACKENDS[0] as TestBackend) {
  const ctx = {} as {
    store: MemoryStore;
    services: Services;
    clock: ReturnType<typeof testClock>;
  };
  beforeEach(async () => {
    ctx.clock = testClock();
    ctx.store = await backend.open();
    ctx.services = createServices(ctx.store, { now: ctx.clock.now });
  });
  afterEach(async () => {
    await ctx.store.close();
  });
  return ctx;
}

/** The ServiceError `promise` rejects with (code and field), or what happened instead. */
export async function failure(
  promise: Promise<unknown>,
): Promise<{ code: string; field?: string | undefined; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (isServiceError(err)) return { code: err.code, field: err.field, message: err.message };
    return { code: `not a ServiceError: ${String(err)}`, message: "" };
  }
  return { code: "resolved", message: "" };
}
