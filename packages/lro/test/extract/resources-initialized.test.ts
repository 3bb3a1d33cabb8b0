/**
 * `notifications/resources/list_changed` goes out only once the client has sent
 * `notifications/initialized`: an offload made during the handshake (between
 * the initialize response and the client's `initialized`) sends nothing, and
 * one made afterwards notifies as usual. Real SDK Client and McpServer.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { LroEvents } from "../../src/events/events.js";
import { registerOffloadResources } from "../../src/mcp/host/offload-resources.js";
import { Offloader } from "../../src/offload/offloader.js";
import { makeMemories } from "./memory-fixtures.js";

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const method = (m: JSONRPCMessage) => ("method" in m ? m.method : "result");
const settle = () => new Promise((r) => setTimeout(r, 30));

describe("resource list_changed and the client's initialization", () => {
  it("sends no list_changed before the client's initialized, and does after", async () => {
    root = mkdtempSync(join(tmpdir(), "atlatl-init-test-"));
    const config = { enabled: true, thresholdTokens: 100, ttlSeconds: 3600, outputDir: root };
    const events = new LroEvents({ sink: null });
    const offloader = new Offloader({ config, events });
    const offload = () =>
      offloader.offloadRecords({ operation: "list", detail: "light", records: makeMemories(50) });
    const server = new McpServer({ name: "init-test", version: "0.0.0" });
    const resources = registerOffloadResources(server, { config, events, ResourceTemplate });

    // One log of the wire, in order: what the server sent, and the client's initialized.
    const wire: string[] = [];
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const serverSend = serverTransport.send.bind(serverTransport);
    serverTransport.send = (message, options) => {
      wire.push(`server: ${method(message)}`);
      return serverSend(message, options);
    };
    const clientSend = clientTransport.send.bind(clientTransport);
    clientTransport.send = async (message, options) => {
      if (method(message) === "notifications/initialized") {
        // The handshake is half done: the server answered initialize, the
        // client has not confirmed. A result offloaded now must not notify.
        expect((await offload()).kind).toBe("offloaded");
        await settle();
        wire.push("client: notifications/initialized");
      }
      return clientSend(message, options);
    };

    const client = new Client({ name: "init-test-client", version: "0.0.0" });
    let changed = 0;
    const { ResourceListChangedNotificationSchema } = await import(
      "@modelcontextprotocol/sdk/types.js"
    );
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      changed++;
    });
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    await settle();
    const initializedAt = wire.indexOf("client: notifications/initialized");
    expect(initializedAt).toBeGreaterThan(0);
    expect(wire.slice(0, initializedAt)).toEqual(["server: result"]);
    expect(changed).toBe(0);
    // The file offloaded during the handshake is listed once the client asks.
    expect((await client.listResources()).resources).toHaveLength(1);

    expect((await offload()).kind).toBe("offloaded");
    await settle();
    expect(changed).toBe(1);
    expect(wire.slice(initializedAt)).toContain("server: notifications/resources/list_changed");

    resources.close();
    await client.close();
    await server.close();
  });
});
