import { createHash } from "node:crypto";
import { join } from "node:path";
import { LroEvents } from "@atlatl/lro";
import { type OffloadConfig, Offloader, type OffloadStore } from "@atlatl/lro/node";
import type { AuthInfo } from "@modelcontextprotocol/server";

/** Principals' offload directories live under `<output_dir>/principals/`. */
export const PRINCIPALS_SUBDIR = "principals";

/** The one principal of a server without tokens (loopback by default). */
export const LOCAL_PRINCIPAL = "local";

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * The identity of a bearer token: stable across restarts and reordering of the
 * token list, and carrying neither the secret nor its position in the list.
 */
export function tokenPrincipal(token: string): string {
  return `tok-${sha256(token).slice(0, 16)}`;
}

/**
 * What the SDK hands a request's handlers (`ctx.http.authInfo`) and the
 * server factory (`ctx.authInfo`): the caller's principal, never its secret.
 */
export function principalAuthInfo(principalId: string): AuthInfo {
  return { token: principalId, clientId: principalId, scopes: [] };
}

/**
 * A principal's offload directory, named by a hash of its id so that paths
 * shown to a client carry no identity.
 */
export function principalDir(root: string, id: string): string {
  return join(root, PRINCIPALS_SUBDIR, sha256(id).slice(0, 32));
}

/**
 * Who owns LRO state over HTTP: a token's identity. Its offload files, written
 * by its one offloader to its own directory, are readable by every session of
 * that token and by nobody else; they live their TTL, whatever happens to the
 * sessions and requests. `events` is the hub of this principal's work only (its
 * offloader's and the sweeper's reports on its directory): each of its sessions
 * and its 2026-07-28 listeners hear it, no other principal's do.
 */
export interface Principal {
  readonly id: string;
  readonly dir: string;
  readonly events: LroEvents;
  readonly offloader: Offloader;
  /**
   * Live legacy MCP sessions and modern requests in flight of this principal:
   * while any, its directory stays even when empty (an offload may be about to
   * write there); otherwise an empty one may go.
   */
  active: number;
}

/** The process's principals, each created on its first request. */
export class Principals {
  private readonly byId = new Map<string, Principal>();
  private readonly byDir = new Map<string, Principal>();

  constructor(
    private readonly deps: {
      config: OffloadConfig;
      /** The process's hub (metrics, the stderr log): every principal's events reach it too. */
      events: LroEvents;
      /**
       * The offload store each principal's offloader publishes to and its
       * readers fetch from (shared: any instance serves the principal's files).
       */
      offloadStore?: OffloadStore | undefined;
    },
  ) {}

  /** The principal `id`, created (with its offloader and hub) on first use. */
  get(id: string): Principal {
    const known = this.byId.get(id);
    if (known) return known;
    const dir = principalDir(this.deps.config.outputDir, id);
    const events = new LroEvents({ sink: null });
    events.on("*", (event) => this.deps.events.emit(event));
    const offloader = new Offloader({
      config: { ...this.deps.config, outputDir: dir },
      events,
      // The process's one principal sweeper sweeps every principal's directory.
      sweep: false,
      ...(this.deps.offloadStore
        ? { store: { store: this.deps.offloadStore, principal: id } }
        : {}),
    });
    const principal: Principal = { id, dir, events, offloader, active: 0 };
    this.byId.set(id, principal);
    this.byDir.set(dir, principal);
    return principal;
  }

  /** The principal owning `dir`, if one was seen since the process started. */
  ofDir(dir: string): Principal | undefined {
    return this.byDir.get(dir);
  }
}
