/**
 * Client input (elicitation, sampling, roots) asked by a 2025-11-25 upstream
 * during a call of a 2026-07-28 client. The upstream sends a server→client
 * request while our `tools/call` (`prompts/get`, `resources/read`) waits for
 * its answer; the 2026 client can only be asked by that call's result. So the
 * upstream call is parked: the downstream call returns
 * `InputRequiredResult` with the upstream's request embedded and a
 * `requestState` naming the parked call; the client's retry carries the
 * answer, which goes to the upstream as its response, and the retry goes on
 * waiting for the upstream's result (or its next question).
 *
 * A `requestState` continues only the request it was minted for: the parked
 * call keeps a digest of its method and params (name and arguments), and a
 * retry whose digest differs is refused, so one call's state cannot answer
 * another (whose own upstream call would then never run).
 *
 * An upstream request is tied to the one input-capable call in flight. With
 * none or several (stdio does not say which call a request belongs to) it is
 * refused: the 2026 protocol has no other channel to the client. Except
 * `roots/list` (a server such as server-filesystem asks it right after its
 * initialize, and its answer decides what the server may read): when the client
 * declared `roots`, it is answered with the roots the client last gave, or held
 * until the client's next call, which asks the client for its roots first
 * (`input_required`) and reaches the upstream only once they are answered, so the
 * wrapped server reads what it would read for the client directly.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  type Request,
  type Result,
  type ServerContext,
} from "@modelcontextprotocol/server";
import {
  type ForwardContext,
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  REQUEST_TIMEOUT,
  rpcError,
} from "./forward.js";

/** The upstream request methods a 2026 client answers through `inputRequests`. */
export const INPUT_METHODS = [
  "elicitation/create",
  "sampling/createMessage",
  "roots/list",
] as const;
type InputMethod = (typeof INPUT_METHODS)[number];

/** The client capability each input method needs. */
export const INPUT_CAPABILITY: Record<InputMethod, string> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/** JSON-RPC code the upstream gets for a question the client cannot be asked. */
const NOT_ASKABLE = METHOD_NOT_FOUND;

interface Question {
  key: string;
  request: InputRequest;
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
}

/** One upstream call of a 2026 client's, possibly parked between legs. */
interface Parked {
  id: string;
  /** {@link requestDigest} of the request that started it: each retry must match. */
  digest: string;
  upstream: Promise<Result>;
  abort: AbortController;
  /** Asked by the upstream, not yet sent to the client. */
  unsent: Question[];
  /** Sent to the client, awaiting its retry. */
  sent: Map<string, Question>;
  /** Wakes the leg in progress when the upstream asks. */
  wake: (() => void) | undefined;
  /** Ends a parked call whose client never retried. */
  expiry: NodeJS.Timeout | undefined;
  nextKey: number;
  /** The client capabilities its latest leg declared. */
  capabilities: Record<string, unknown> | undefined;
  /** The latest leg: the upstream's progress goes to it, under its progress token. */
  leg: ServerContext;
  /** The upstream answered (its result waits for the retry when questions are out). */
  done: boolean;
}

/** Options of {@link InputBridge}. */
interface InputBridgeOptions {
  /** How long a parked call waits for the client's retry, in ms. */
  parkMs: number;
  /** The capabilities the client opened the session with (what the upstream was told). */
  capabilities: Record<string, unknown>;
  /**
   * The client's roots are known, and reach the upstream before the call that
   * asked for them: `answered` when a held `roots/list` got them, else the
   * upstream asked earlier and stopped waiting (it should ask again). Resolves
   * once the upstream has had them.
   */
  rootsKnown(answered: boolean): Promise<void>;
}

export class InputBridge {
  private readonly calls = new Map<string, Parked>();
  private readonly codec = createRequestStateCodec<{ call: string }>({
    // One process serves every round of a stdio session: a key of its own suffices.
    key: randomBytes(32),
    ttlSeconds: 3600,
  });

  /** The upstream's `roots/list` requests asked while no one call could carry them. */
  private heldRoots: Question[] = [];
  /** The upstream wants the client's roots (it asked while none could be had). */
  private rootsWanted = false;
  /** The client's latest answer to `roots/list`. */
  private roots: Result | undefined;
  /** The client just gave its roots and they are on their way to the upstream. */
  private rootsSettling = false;

  constructor(private readonly options: InputBridgeOptions) {}

  /**
   * Run one leg of an input-capable call: a new call starts `start` (the
   * upstream request, with a context that outlives this leg: cancelled with
   * the call, its progress sent to whichever leg is current); a retry (its
   * `requestState` ours, for this same request) answers the parked call's
   * questions and waits on.
   */
  async leg(
    ctx: ServerContext,
    request: Request,
    start: (call: ForwardContext) => Promise<Result>,
  ): Promise<Result> {
    const call = await this.callOf(ctx, requestDigest(request), start);
    call.capabilities = capabilitiesOf(ctx);
    call.leg = ctx;
    const onAbort = () => call.abort.abort(ctx.mcpReq.signal.reason);
    ctx.mcpReq.signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.wait(call);
    } finally {
      ctx.mcpReq.signal.removeEventListener("abort", onAbort);
      if (call.done && call.sent.size === 0) this.end(call);
    }
  }

  /** The call a leg belongs to: the parked one its `requestState` names, or a new one. */
  private async callOf(
    ctx: ServerContext,
    digest: string,
    start: (call: ForwardContext) => Promise<Result>,
  ): Promise<Parked> {
    const state = ctx.mcpReq.requestState<string>();
    if (typeof state === "string") {
      let id: string;
      try {
        id = (await this.codec.verify(state, ctx)).call;
      } catch {
        throw rpcError(INVALID_PARAMS, "Invalid or expired requestState");
      }
      const call = this.calls.get(id);
      if (!call) {
        throw rpcError(
          INVALID_PARAMS,
          "atlatl-proxy: the call this requestState continues has ended (its upstream answered, failed or waited too long); call again",
        );
      }
      if (call.digest !== digest) {
        throw rpcError(
          INVALID_PARAMS,
          `atlatl-proxy: this requestState was issued for another request; a retry must repeat the ${ctx.mcpReq.method} it continues with the same name and arguments (send this request without requestState and inputResponses to make it a new call)`,
          { code: "REQUEST_STATE_MISMATCH" },
        );
      }
      this.answer(call, ctx.mcpReq.inputResponses ?? {});
      return call;
    }
    const abort = new AbortController();
    const call: Parked = {
      id: randomBytes(12).toString("base64url"),
      digest,
      upstream: Promise.resolve({}),
      abort,
      unsent: [],
      sent: new Map(),
      wake: undefined,
      expiry: undefined,
      nextKey: 1,
      capabilities: undefined,
      leg: ctx,
      done: false,
    };
    this.calls.set(call.id, call);
    const progressToken = ctx.mcpReq._meta?.progressToken;
    const forwarded: ForwardContext = {
      mcpReq: {
        signal: abort.signal,
        ...(progressToken !== undefined ? { _meta: { progressToken } } : {}),
        notify: (notification) => {
          // Each leg is a request of its own, with a progress token of its own (or none).
          const token = call.leg.mcpReq._meta?.progressToken;
          if (token === undefined) return Promise.resolve();
          return call.leg.mcpReq.notify({
            ...notification,
            params: { ...notification.params, progressToken: token },
          });
        },
      },
    };
    // The upstream waits for the client's roots: ask for them first, and start
    // the call once the upstream has them (see the file's comment).
    let started: Promise<void> = Promise.resolve();
    if (this.rootsWanted && capabilitiesOf(ctx)?.roots !== undefined) {
      started = new Promise<void>((resolve, reject) => {
        call.unsent.push({
          key: `input-${call.nextKey++}`,
          request: embedded("roots/list", undefined),
          resolve: (roots) => this.rootsGiven(roots).then(resolve, reject),
          reject,
        });
      });
    }
    // A question the client has not answered yet may be the upstream's own
    // (not this call's): its answer still goes to the upstream, and the result
    // waits for that retry (or the park's expiry).
    call.upstream = started
      .then(() => start(forwarded))
      .finally(() => {
        call.done = true;
        if (call.sent.size === 0) this.end(call);
      });
    // Settled before anyone awaits it (a call parked and never retried).
    call.upstream.catch(() => {});
    return call;
  }

  /** Hand the client's answers to the questions they answer; unanswered ones are asked again. */
  private answer(call: Parked, responses: Record<string, unknown>): void {
    if (call.expiry) clearTimeout(call.expiry);
    call.expiry = undefined;
    for (const [key, q] of [...call.sent]) {
      call.sent.delete(key);
      const response = responses[key];
      if (response !== undefined && response !== null && typeof response === "object") {
        q.resolve(response as Result);
      } else {
        call.unsent.push(q);
      }
    }
  }

  /** Wait for the upstream's result or its next question (then return it to the client). */
  private async wait(call: Parked): Promise<Result> {
    for (;;) {
      // Questions asked after the result belong to no one: the result goes first.
      if (call.done) return call.upstream;
      if (call.unsent.length > 0) return this.ask(call);
      const asked = new Promise<"asked">((resolve) => {
        call.wake = () => resolve("asked");
      });
      const outcome = await Promise.race([call.upstream, asked]);
      call.wake = undefined;
      if (outcome !== "asked") return outcome;
    }
  }

  /** The leg's `InputRequiredResult`: the unsent questions, and the call parked until the retry. */
  private async ask(call: Parked): Promise<InputRequiredResult> {
    const inputRequests: Record<string, InputRequest> = {};
    for (const q of call.unsent.splice(0)) {
      inputRequests[q.key] = q.request;
      call.sent.set(q.key, q);
    }
    call.expiry = setTimeout(() => {
      call.abort.abort();
      for (const q of call.sent.values()) {
        q.reject(rpcError(REQUEST_TIMEOUT, "atlatl-proxy: the client did not answer in time"));
      }
      this.end(call);
    }, this.options.parkMs);
    call.expiry.unref();
    return inputRequired({ inputRequests, requestState: await this.codec.mint({ call: call.id }) });
  }

  /**
   * An upstream's question for the client: tied to the one input-capable
   * call in flight, answered when the client retries. A question the
   * client's capabilities do not cover is refused.
   */
  question(
    method: InputMethod,
    params: Record<string, unknown> | undefined,
    signal?: AbortSignal,
  ): Promise<Result> {
    const calls = [...this.calls.values()].filter((c) => !c.done);
    if (method === "roots/list") {
      // Asked again on our list_changed, while the call that got them waits.
      if (this.rootsSettling && this.roots) return Promise.resolve(this.roots);
      if (calls.length !== 1 && this.options.capabilities[INPUT_CAPABILITY[method]] !== undefined) {
        return this.roots ? Promise.resolve(this.roots) : this.holdRoots(params, signal);
      }
    }
    if (calls.length !== 1) {
      return Promise.reject(
        rpcError(
          NOT_ASKABLE,
          calls.length === 0
            ? `atlatl-proxy: the client speaks MCP 2026-07-28, which can be asked (${method}) only within a tools/call, prompts/get or resources/read in progress, and none is`
            : `atlatl-proxy: the client speaks MCP 2026-07-28 and ${calls.length} calls are in progress; ${method} cannot be tied to one of them`,
        ),
      );
    }
    const call = calls[0] as Parked;
    if (call.capabilities?.[INPUT_CAPABILITY[method]] === undefined) {
      return Promise.reject(
        rpcError(
          NOT_ASKABLE,
          `atlatl-proxy: the client did not declare the ${INPUT_CAPABILITY[method]} capability; ${method} cannot be relayed`,
        ),
      );
    }
    return new Promise<Result>((resolve, reject) => {
      const key = `input-${call.nextKey++}`;
      const remember = (result: Result) => {
        if (method === "roots/list") this.roots = result;
        resolve(result);
      };
      call.unsent.push({ key, request: embedded(method, params), resolve: remember, reject });
      call.wake?.();
    });
  }

  /** Hold the upstream's `roots/list` for the client's next call (until the upstream gives up). */
  private holdRoots(
    params: Record<string, unknown> | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Result> {
    this.rootsWanted = true;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Result>((resolve, reject) => {
      const held: Question = { key: "", request: embedded("roots/list", params), resolve, reject };
      this.heldRoots.push(held);
      signal?.addEventListener(
        "abort",
        () => {
          this.heldRoots = this.heldRoots.filter((q) => q !== held);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** The client answered `roots/list` before its call: the upstream gets the roots first. */
  private async rootsGiven(roots: Result): Promise<void> {
    this.roots = roots;
    this.rootsWanted = false;
    const held = this.heldRoots.splice(0);
    for (const q of held) q.resolve(roots);
    this.rootsSettling = true;
    try {
      await this.options.rootsKnown(held.length > 0);
    } finally {
      this.rootsSettling = false;
    }
  }

  /** Forget `call` and refuse what it still asked. */
  private end(call: Parked): void {
    if (!this.calls.delete(call.id)) return;
    if (call.expiry) clearTimeout(call.expiry);
    const ended = rpcError(NOT_ASKABLE, "atlatl-proxy: the call this question belonged to ended");
    for (const q of [...call.unsent, ...call.sent.values()]) q.reject(ended);
  }
}

/**
 * What identifies a request across its retries: its method and params (the
 * tool or prompt name, arguments, resource URI), without what changes from one
 * leg to the next (`_meta`, `inputResponses`, `requestState`). Object keys are
 * sorted, so the same arguments in another order match.
 */
function requestDigest(request: Request): string {
  const { _meta: _m, inputResponses: _i, requestState: _s, ...params } = request.params ?? {};
  const canonical = JSON.stringify([request.method, params], (_key, value: unknown) =>
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
  return createHash("sha256").update(canonical).digest("base64url");
}

/** The capabilities a 2026 request declared (its envelope). */
function capabilitiesOf(ctx: ServerContext): Record<string, unknown> | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
}

/**
 * An upstream request as a 2026 `inputRequests` entry. A 2025 URL elicitation's
 * `elicitationId` has no place there (2026 correlates through `requestState`),
 * so its completion notification cannot be relayed either.
 */
function embedded(method: InputMethod, params: Record<string, unknown> | undefined): InputRequest {
  const { _meta: _m, elicitationId: _e, ...rest } = params ?? {};
  return { method, params: rest } as unknown as InputRequest;
}
