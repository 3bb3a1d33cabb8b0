/**
 * The pieces the upstream bounds rest on, on their own: SSE events cut where the
 * SSE specification ends them (however the bytes are split), the id of a dropped
 * response read from its ends (and never from a request or a nested value), and
 * an upstream URL's secrets hidden in messages.
 */
import { MessageFramer, redactUrl, redactUrlSecrets } from "@atlatl/lro/node";
import { describe, expect, it } from "vitest";
import { droppedResponseId } from "../src/upstream/message-bound.js";
import { SseEventBoundary } from "../src/upstream/sse-event-boundary.js";

/** The events and drops of `stream` fed in pieces of `size` bytes, with a bound of `max`. */
function frame(stream: string, size: number, max = 1000): string[] {
  const seen: string[] = [];
  const framer = new MessageFramer(max, new SseEventBoundary(), {
    message: (parts) => seen.push(Buffer.concat(parts).toString()),
    dropped: (head, tail) =>
      seen.push(`dropped ${head.toString().slice(0, 12)}…${tail.toString().slice(-4)}`),
  });
  const bytes = Buffer.from(stream);
  for (let i = 0; i < bytes.length; i += size) framer.push(bytes.subarray(i, i + size));
  return seen;
}

describe("SSE events within a bound", () => {
  const stream = "data: a\n\nevent: message\r\ndata: b\r\n\r\ndata: c\r\rdata: d\ndata: e\n\n";
  it("ends events at LF, CRLF and CR blank lines, whatever the chunk size", () => {
    for (const size of [1, 2, 3, 7, 1000]) {
      const events = frame(stream, size);
      expect(events.join("")).toBe(stream);
      expect(events.map((e) => e.replace(/^\n/, "").split(/\r?\n|\r/)[0])).toEqual([
        "data: a",
        "event: message",
        "data: c",
        "data: d",
      ]);
    }
  });

  it("drops an event over the bound, keeping its ends, and goes on with the next", () => {
    const big = `data: {"result":"${"x".repeat(100)}","id":7}\n\n`;
    for (const size of [1, 5, 1000]) {
      expect(frame(`${big}data: next\n\n`, size, 50)).toEqual([
        'dropped data: {"resu…7}\n\n',
        "data: next\n\n",
      ]);
    }
  });
});

describe("the id of a dropped response", () => {
  const text = `"${"x".repeat(50)}"`;
  it("is read from the tail (TypeScript SDK order) or the head (Python SDK order)", () => {
    expect(droppedResponseId(`{"result":{"t":${text}`, `${text}},"jsonrpc":"2.0","id":12}`)).toBe(
      12,
    );
    expect(droppedResponseId(`{"jsonrpc":"2.0","id":"a-1","result":{`, `${text}}}`)).toBe("a-1");
    expect(droppedResponseId(`{"error":{"code":1`, `,"id":3,"jsonrpc":"2.0"}\r\n`)).toBe(3);
  });

  it("is not taken from a request of the upstream's, a nested value or a string", () => {
    expect(
      droppedResponseId(`{"method":"sampling/createMessage"`, `},"jsonrpc":"2.0","id":0}`),
    ).toBeUndefined();
    expect(droppedResponseId(`{"result":{"a":1`, `{"id":5}}`)).toBeUndefined();
    expect(droppedResponseId(`{"result":"`, `\\",\\"id\\":5}"}`)).toBeUndefined();
  });
});

describe("an upstream URL in messages", () => {
  const url = new URL(
    "https://bob:PASSWORD987@example.com:8443/mcp?api_key=SECRET%2B1&v=1#FRAGMENT1",
  );
  it("shows the host and path, and *** for userinfo, query values and fragment", () => {
    expect(redactUrl(url)).toBe("https://***@example.com:8443/mcp?api_key=***&v=***#***");
  });

  it("hides the secrets wherever a message quotes them: whole URL, raw or decoded value", () => {
    const message = `fetch ${url.href} failed; server said: bad key SECRET+1 (SECRET%2B1) for /mcp?api_key=SECRET%2B1&v=1`;
    const clean = redactUrlSecrets(message, url);
    for (const secret of ["PASSWORD987", "SECRET", "FRAGMENT1"])
      expect(clean).not.toContain(secret);
    expect(clean).toContain("https://***@example.com:8443/mcp?api_key=***&v=***#***");
    expect(clean).toContain("/mcp?api_key=***&v=1");
  });
});
