/**
 * A TCP proxy on 127.0.0.1 in front of a PostgreSQL server that can be made
 * to stop answering, as a partitioned or stalled host does: connections are
 * still accepted, and nothing more goes through either way. Safer than
 * stopping the server's processes, which other tests share.
 */
import { connect, createServer, type Socket } from "node:net";

export interface StallingProxy {
  /** The target URL with the proxy's host and port. */
  url: string;
  /** From now on nothing goes through, on open connections and new ones. */
  stall(): void;
  /** As a stopped server: open connections are cut, new ones closed at once. */
  cut(): void;
  /** Forward again (after `stall` or `cut`); connections held while stalled are dropped (their clients gave up). */
  resume(): void;
  close(): Promise<void>;
}

export async function startStallingProxy(targetUrl: string): Promise<StallingProxy> {
  const target = new URL(targetUrl);
  const pairs = new Set<[Socket, Socket]>();
  const held = new Set<Socket>();
  let stalled = false;
  let cut = false;
  const server = createServer((client) => {
    client.on("error", () => undefined);
    if (cut) {
      client.destroy();
      return;
    }
    if (stalled) {
      held.add(client);
      client.pause();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end);
    upstream.on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    stall() {
      stalled = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    cut() {
      cut = true;
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      for (const s of held) s.destroy();
      held.clear();
    },
    resume() {
      stalled = false;
      cut = false;
      for (const [client, upstream] of pairs) {
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
        upstream.resume();
      }
      for (const s of held) s.destroy();
      held.clear();
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      for (const s of held) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
