import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { FetchFunction } from "../src/upstream/counting-fetch.ts";
import { createCycleHarness, type CycleHarness } from "./harness.ts";

/** Spaces put before the list's closing `]`: more than the loopback socket buffers hold. */
const PADDING_BYTES = 16 * 1024 * 1024;

/** Request headers of the client's connection to the front, not forwarded to the fake. */
const HOP_HEADERS = new Set([
  "host",
  "connection",
  "keep-alive",
  "content-length",
  "transfer-encoding",
  "accept-encoding",
]);

/** How the list front answers Get Surveys. */
type ListMode = "padded" | "cut-off";

/** The list body with its Surveys array last and {@link PADDING_BYTES} of whitespace before its `]`. */
function padded(listBody: string): Buffer {
  const { Surveys: surveys, ...fields } = JSON.parse(listBody) as { Surveys: unknown[] };
  const head = JSON.stringify(fields).slice(0, -1);
  return Buffer.from(
    `${head}${head === "{" ? "" : ","}"Surveys":[${surveys.map((survey) => JSON.stringify(survey)).join(",")}${" ".repeat(PADDING_BYTES)}]}`,
  );
}

/**
 * A node:http front for Get Surveys with a 200 ms keep-alive timeout (the upstream's own, or a
 * load balancer's): it serves the fake's list with 16 MB of whitespace before its closing `]`,
 * whole ("padded") or cut off half-way by a destroyed connection ("cut-off").
 */
async function startListFront(fakeBaseUrl: () => string) {
  let mode: ListMode = "padded";
  let connectionClosed!: () => void;
  const closed = new Promise<void>((resolve) => (connectionClosed = resolve));
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers))
        if (typeof value === "string" && !HOP_HEADERS.has(name)) headers.set(name, value);
      const body = padded(await (await fetch(`${fakeBaseUrl()}/surveys`, { headers })).text());
      response.writeHead(200, { "content-type": "application/json", "content-length": String(body.byteLength) });
      if (mode === "padded") response.end(body);
      else
        response.write(body.subarray(0, body.byteLength / 2), () => {
          response.destroy();
        });
    })().catch(() => response.destroy());
  });
  server.keepAliveTimeout = 200;
  server.on("connection", (socket) => socket.once("close", connectionClosed));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    /** Settles once a connection of the list front has closed. */
    connectionClosed: closed,
    set mode(next: ListMode) {
      mode = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/**
 * Sends Get Surveys to the list front, and holds each survey's qualifications and quotas requests
 * until a connection of the list front has closed: a cycle whose fetches are slow, so it reads the
 * list slowly, and finds the upstream gone when it reads on.
 */
function throughListFront(
  front: () => Awaited<ReturnType<typeof startListFront>>,
): (fetch: FetchFunction) => FetchFunction {
  return (inner) => async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    if (url.pathname.endsWith("/surveys"))
      return inner(new Request(`${front().origin}${url.pathname}${url.search}`, request), init);
    if (/\/survey-(qualifications|quotas)\//.test(url.pathname)) await front().connectionClosed;
    return inner(input, init);
  };
}

describe("a cycle whose list outlives the upstream's keep-alive timeout", () => {
  let harness: CycleHarness | undefined;
  let front: Awaited<ReturnType<typeof startListFront>> | undefined;
  afterEach(async () => {
    await harness?.close();
    await front?.close();
    harness = undefined;
    front = undefined;
  });

  const start = async () => {
    const listFront = await startListFront(() => harness?.server.baseUrl ?? "");
    front = listFront;
    // The deadline only ends a cycle that the closed connection would otherwise leave waiting forever.
    const started = await createCycleHarness({
      surveys: 20,
      wrapFetch: throughListFront(() => listFront),
      cycle: { deadlineMs: 15_000 },
    });
    harness = started;
    return { harness: started, front: listFront };
  };

  it("stores every survey of a 16 MB list the upstream closed its connection on before the cycle had read past the first surveys", async () => {
    const { harness } = await start();

    const result = await harness.cycle();

    expect(result).toMatchObject({ status: "succeeded", counts: { listed: 20, opened: 20 } });
    const { surveys } = await harness.store.listSurveys({ status: "all", limit: 100 });
    expect(surveys.map((survey) => survey.id).sort()).toEqual(
      harness.api
        .listSurveys(1001)
        .map((survey) => survey.SurveyId)
        .sort(),
    );
  }, 30_000);

  it("fails the cycle on a list the upstream cut off mid-body, and commits nothing of it", async () => {
    const started = await start();
    started.front.mode = "cut-off";

    const result = await started.harness.cycle();

    expect(result).toMatchObject({ status: "failed", error: expect.stringMatching(/terminated/) as unknown });
    expect((await started.harness.store.listSurveys({ status: "all", limit: 100 })).surveys).toEqual([]);
    expect(await started.harness.store.latestSequence()).toBe(0);
    expect(await started.harness.store.listRuns(1)).toMatchObject([{ status: "failed" }]);
  }, 30_000);
});
