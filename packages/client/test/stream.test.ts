import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ApiError,
  ConnectionError,
  NotFoundError,
  RequestAbortedError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  type RetryEvent,
  type StreamedSurvey,
  type SurveyStream,
} from "@sds/client";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, transportModes, type Harness } from "./support/harness.ts";

const encoder = new TextEncoder();

/** Reads a stream to its end, collecting what it yielded and the error it threw, if any. */
async function drain(stream: SurveyStream): Promise<{ entries: StreamedSurvey[]; error: unknown }> {
  const entries: StreamedSurvey[] = [];
  try {
    for await (const entry of stream) entries.push(entry);
    return { entries, error: undefined };
  } catch (error) {
    return { entries, error };
  }
}

/** A body that hands out `text`, then fails its next read with `error`, as a connection that dies. */
function bodyThenFailure(text: string, error: Error): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent) controller.error(error);
        else controller.enqueue(encoder.encode(text));
        sent = true;
      },
    },
    { highWaterMark: 0 },
  );
}

/** A body stream the test feeds by hand: `push` a piece, `fail` with an error, `end`. */
function manualBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(started) {
      controller = started;
    },
  });
  return {
    body,
    push: (text: string) => {
      controller.enqueue(encoder.encode(text));
    },
    fail: (error: Error) => {
      controller.error(error);
    },
    end: () => {
      controller.close();
    },
  };
}

const okEnvelope = '"status":"ok","hasError":false,"messages":[],"error":{"errorCode":""}';

describe.each(transportModes)("surveys.stream (%s)", (mode) => {
  let harness: Harness;
  let retries: RetryEvent[];

  const start = async (surveys = 30) => {
    retries = [];
    harness = await startHarness(
      mode,
      { retry: { limit: 2, initialDelay: 1, jitter: false }, hooks: { onRetry: (event) => retries.push(event) } },
      { suppliers: [{ supplierId: 1001, apiKey: "stream-key", surveys }] },
    );
  };

  afterEach(async () => {
    await harness.close();
  });

  it("yields exactly the surveys list() returns, in order, and the envelope and response info at the end", async () => {
    await start(40);
    const listed = await harness.sds.surveys.list();
    const stream = harness.sds.surveys.stream();
    const { entries, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(entries.map((entry) => entry.survey)).toEqual(listed.Surveys);
    expect(entries.map((entry) => entry.index)).toEqual(listed.Surveys.map((_, index) => index));
    const result = await stream.result;
    const { Surveys: _surveys, ...envelope } = listed;
    expect(result.envelope).toEqual(envelope);
    expect(result).toMatchObject({
      surveys: 40,
      invalid: 0,
      response: { status: 200, attempts: 1, operation: "listSurveys", method: "GET" },
    });
  });

  it("reports an invalid survey with its index and issues, and keeps going", async () => {
    await start(5);
    const bad = harness.api.addSurvey(harness.supplierId, {
      survey: { Cpi: 2.5 as unknown as string },
      allowInvalid: true,
    });
    const all = harness.api.listSurveys(harness.supplierId);
    const index = all.findIndex((survey) => survey.SurveyId === bad.SurveyId);
    const stream = harness.sds.surveys.stream();
    const { entries, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(entries.flatMap((entry) => (entry.survey ? [entry.survey.SurveyId] : []))).toEqual(
      all.filter((survey) => survey !== all[index]).map((survey) => survey.SurveyId),
    );
    const invalid = entries.find((entry) => entry.invalid)?.invalid;
    expect(invalid).toMatchObject({
      index,
      item: { SurveyId: bad.SurveyId, Cpi: 2.5 },
      issues: [{ path: ["Cpi"], code: "invalid_type" }],
    });
    await expect(stream.result).resolves.toMatchObject({ surveys: 5, invalid: 1 });
  });

  it("reports unknown fields as issues in strict mode, and checks nothing with validation off", async () => {
    await start(3);
    harness.api.addSurvey(harness.supplierId, { survey: { Surprise: true } });
    const strict = await drain(harness.sds.surveys.stream({ validation: "strict" }));
    expect(strict.entries.filter((entry) => entry.invalid).map((entry) => entry.invalid?.issues[0]?.code)).toEqual([
      "unrecognized_keys",
    ]);
    harness.api.addSurvey(harness.supplierId, { survey: { Cpi: 1 as unknown as string }, allowInvalid: true });
    const unchecked = await drain(harness.sds.surveys.stream({ validation: "off" }));
    expect(unchecked.entries.every((entry) => entry.survey !== undefined)).toBe(true);
    expect(unchecked.entries).toHaveLength(5);
  });

  it("throws the ApiError of a hasError body under HTTP 200, without retrying", async () => {
    await start(3);
    harness.api.faults.add({
      kind: "envelope-error",
      errorCode: "UPSTREAM_DOWN",
      message: "try later",
      operation: "listSurveys",
    });
    const stream = harness.sds.surveys.stream();
    const { entries, error } = await drain(stream);
    expect(entries).toEqual([]);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 200, errorCode: "UPSTREAM_DOWN", messages: ["try later"], attempts: 1 });
    await expect(stream.result).rejects.toBe(error);
    expect(retries).toEqual([]);
  });

  it("maps error statuses to their classes and retries them as other calls do", async () => {
    await start(3);
    harness.api.faults.add({ kind: "status", status: 503, operation: "listSurveys", count: 1 });
    const retried = harness.sds.surveys.stream();
    expect((await drain(retried)).entries).toHaveLength(3);
    expect((await retried.result).response.attempts).toBe(2);
    expect(retries[0]?.error).toBeInstanceOf(ServerError);

    harness.api.faults.add({ kind: "status", status: 404, operation: "listSurveys", count: 1 });
    expect((await drain(harness.sds.surveys.stream())).error).toBeInstanceOf(NotFoundError);
  });

  it("retries a body cut short before any survey, and succeeds", async () => {
    await start(10);
    harness.api.faults.add({ kind: "truncated-json", keep: 0.01, operation: "listSurveys", count: 1 });
    const stream = harness.sds.surveys.stream();
    const { entries, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(entries).toHaveLength(10);
    expect(retries.map((event) => event.error.name)).toEqual(["ResponseValidationError"]);
  });

  it("yields the surveys before a cut, then throws ResponseValidationError without retrying", async () => {
    await start(20);
    harness.api.faults.add({ kind: "truncated-json", keep: 0.6, operation: "listSurveys", count: 1 });
    const stream = harness.sds.surveys.stream();
    const { entries, error } = await drain(stream);
    expect(entries.length).toBeGreaterThan(5);
    expect(entries.length).toBeLessThan(20);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).message).toContain("the body ended before its JSON was complete");
    expect((error as ResponseValidationError).issues).toEqual([expect.objectContaining({ code: "invalid_json" })]);
    expect(retries).toEqual([]);
  });

  it("retries a malformed body when the fault shows before any survey was handed out", async () => {
    await start(4);
    harness.api.faults.add({ kind: "malformed-json", operation: "listSurveys", count: 1 });
    // The body arrives in one chunk, so the scanner fails before that chunk's surveys are handed out.
    const retried = await drain(harness.sds.surveys.stream());
    expect(retried.entries).toHaveLength(4);
    expect(retries.map((event) => event.error.name)).toEqual(["ResponseValidationError"]);

    harness.api.faults.add({ kind: "malformed-json", operation: "listSurveys", count: 1 });
    const { entries, error } = await drain(harness.sds.surveys.stream({ retry: false }));
    expect(entries).toEqual([]);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).message).toMatch(
      /GET \/surveys returned HTTP 200, but the body is not valid JSON: expected a field name at character \d+, found "}"/,
    );
  });

  it("retries a connection reset before the response, and throws ConnectionError when no retry is left", async () => {
    await start(3);
    harness.api.faults.add({ kind: "connection-reset", operation: "listSurveys", count: 1 });
    expect((await drain(harness.sds.surveys.stream())).entries).toHaveLength(3);
    expect(retries[0]?.error).toBeInstanceOf(ConnectionError);
    harness.api.faults.add({ kind: "connection-reset", operation: "listSurveys" });
    const { error } = await drain(harness.sds.surveys.stream({ retry: false }));
    expect(error).toBeInstanceOf(ConnectionError);
  });

  it("gives the concurrency slot back when the consumer stops early, and says so in result", async () => {
    await start(10);
    const sds = harness.client({ maxConcurrency: 1 });
    const stream = sds.surveys.stream();
    let seen = 0;
    for await (const entry of stream) {
      expect(entry.survey).toBeDefined();
      seen += 1;
      if (seen === 2) break;
    }
    await expect(stream.result).rejects.toBeInstanceOf(RequestAbortedError);
    await expect(stream.result).rejects.toThrow("GET /surveys was stopped by its consumer before the end of the list");
    await expect(sds.account.get()).resolves.toMatchObject({ hasError: false });
  });

  it("ends with RequestAbortedError when the caller aborts mid-list", async () => {
    await start(10);
    const controller = new AbortController();
    const stream = harness.sds.surveys.stream({ signal: controller.signal });
    const entries: StreamedSurvey[] = [];
    const error = await (async () => {
      for await (const entry of stream) {
        entries.push(entry);
        if (entries.length === 3) controller.abort(new Error("shutting down"));
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as RequestAbortedError).cause).toEqual(new Error("shutting down"));
    // Items already in the chunk may be handed out until the next read notices the abort.
    expect(entries.length).toBeGreaterThanOrEqual(3);
  });

  it("works as the README recipe shows: entries narrowed by destructuring, the envelope after the loop", async () => {
    await start(6);
    harness.api.addSurvey(harness.supplierId, { survey: { Cpi: 1 as unknown as string }, allowInvalid: true });
    const staged: number[] = [];
    const skipped: number[] = [];
    const stream = harness.sds.surveys.stream();
    for await (const { survey, invalid } of stream) {
      if (survey) staged.push(survey.SurveyId);
      else skipped.push(invalid.index);
    }
    const { envelope, response } = await stream.result;
    expect([staged.length, skipped]).toEqual([6, [6]]);
    expect(envelope.SupplierId).toBe(harness.supplierId);
    expect(response.status).toBe(200);
  });

  it("can be iterated only once", async () => {
    await start(2);
    const stream = harness.sds.surveys.stream();
    await drain(stream);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(TypeError);
  });
});

describe("surveys.stream with a body fed by hand", () => {
  const clientWith = async (respond: () => Response, options: Parameters<Harness["client"]>[0] = {}) => {
    const harness = await startHarness("in-process", { retry: false });
    return harness.client({ fetch: () => Promise.resolve(respond()), ...options });
  };

  it("hands out each survey as soon as its text is complete, before the body ends", async () => {
    const feed = manualBody();
    const [survey] = (await (await startHarness("in-process")).sds.surveys.list()).Surveys;
    const sds = await clientWith(() => new Response(feed.body, { status: 200 }));
    const iterator = sds.surveys.stream()[Symbol.asyncIterator]();
    const text = JSON.stringify(survey);
    feed.push(`{${okEnvelope},"Surveys":[${text.slice(0, 40)}`);
    const first = iterator.next();
    feed.push(`${text.slice(40)},`);
    await expect(first).resolves.toEqual({ done: false, value: { survey, index: 0, json: text } });
    feed.push(`${text}],"SupplierId":1001}`);
    feed.end();
    await expect(iterator.next()).resolves.toEqual({ done: false, value: { survey, index: 1, json: text } });
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
  });

  it("hands out each item's JSON text exactly as the body carried it, whitespace and escapes included", async () => {
    const [survey] = (await (await startHarness("in-process")).sds.surveys.list()).Surveys;
    const spaced = JSON.stringify(survey, null, 2).replace('"SurveyId"', '"Survey\\u0049d"');
    const malformed = '{ "SurveyId": "not a number" }';
    const body = `{${okEnvelope},"Surveys":[ ${spaced} ,\n${malformed}],"SupplierId":1001}`;
    const sds = await clientWith(() => new Response(body, { status: 200 }));
    const { entries, error } = await drain(sds.surveys.stream());
    expect(error).toBeUndefined();
    expect(entries.map((entry) => entry.json)).toEqual([spaced, malformed]);
    expect(entries[0]?.survey).toEqual(survey);
    expect(entries[1]?.invalid).toBeDefined();
  });

  it("throws the ApiError at the end when hasError: true comes after surveys were handed out", async () => {
    const [survey] = (await (await startHarness("in-process")).sds.surveys.list()).Surveys;
    const body = `{"Surveys":[${JSON.stringify(survey)}],"SupplierId":1001,"status":"error","hasError":true,"messages":["list incomplete"],"error":{"errorCode":"PARTIAL"}}`;
    const sds = await clientWith(() => new Response(body, { status: 200 }));
    const stream = sds.surveys.stream();
    const { entries, error } = await drain(stream);
    expect(entries).toEqual([{ survey, index: 0, json: JSON.stringify(survey) }]);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 200, errorCode: "PARTIAL", messages: ["list incomplete"] });
  });

  it("throws ResponseValidationError, without retrying, when the body turns malformed after surveys were handed out", async () => {
    const feed = manualBody();
    const [survey] = (await (await startHarness("in-process")).sds.surveys.list()).Surveys;
    const sds = await clientWith(() => new Response(feed.body, { status: 200 }), { retry: 2 });
    const iterator = sds.surveys.stream()[Symbol.asyncIterator]();
    feed.push(`{${okEnvelope},"Surveys":[${JSON.stringify(survey)},`);
    await expect(iterator.next()).resolves.toEqual({
      done: false,
      value: { survey, index: 0, json: JSON.stringify(survey) },
    });
    feed.push("]}");
    feed.end();
    await expect(iterator.next()).rejects.toThrow(
      /^GET \/surveys returned HTTP 200, but the body is not valid JSON: expected a value at character \d+, found "]"$/,
    );
  });

  it("completes when the connection dies after the JSON document is complete (undici's late 'other side closed')", async () => {
    const [survey] = (await (await startHarness("in-process")).sds.surveys.list()).Surveys;
    const closed = new TypeError("terminated", { cause: new Error("other side closed") });
    const sds = await clientWith(
      () =>
        new Response(
          bodyThenFailure(`{${okEnvelope},"Surveys":[${JSON.stringify(survey)}],"SupplierId":1001}`, closed),
          { status: 200 },
        ),
    );
    const stream = sds.surveys.stream();
    const { entries, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(entries).toEqual([{ survey, index: 0, json: JSON.stringify(survey) }]);
    await expect(stream.result).resolves.toMatchObject({ envelope: { SupplierId: 1001 } });
  });

  it("throws ConnectionError when the connection dies one byte before the end of the document", async () => {
    const closed = new TypeError("terminated", { cause: new Error("other side closed") });
    const sds = await clientWith(
      () => new Response(bodyThenFailure(`{${okEnvelope},"Surveys":[],"SupplierId":1001`, closed), { status: 200 }),
    );
    const { error } = await drain(sds.surveys.stream());
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toContain("terminated: other side closed");
  });

  it("throws TimeoutError when the body stalls longer than the attempt timeout between chunks", async () => {
    const feed = manualBody();
    const sds = await clientWith(() => new Response(feed.body, { status: 200 }), { timeout: 80 });
    feed.push(`{${okEnvelope},"Surveys":[`);
    const { error } = await drain(sds.surveys.stream());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: "attempt", timeout: 80 });
    expect((error as TimeoutError).message).toContain("no data for 80 ms while reading the body");
  });

  it("reports a missing or malformed envelope as ResponseValidationError at the end", async () => {
    const sds = await clientWith(() => new Response(`{${okEnvelope},"Surveys":[],"SupplierId":"x"}`, { status: 200 }));
    const { error } = await drain(sds.surveys.stream());
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues).toEqual([expect.objectContaining({ path: ["SupplierId"] })]);
    const missing = await clientWith(() => new Response(`{${okEnvelope},"SupplierId":1001}`, { status: 200 }));
    expect(((await drain(missing.surveys.stream())).error as ResponseValidationError).issues).toEqual([
      expect.objectContaining({ path: ["Surveys"] }),
    ]);
  });
});

describe("surveys.stream over a connection that dies mid-body", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  it("yields what arrived, then throws ConnectionError without retrying", async () => {
    const harness = await startHarness("in-process");
    const surveys = (await harness.sds.surveys.list()).Surveys.slice(0, 3);
    let requests = 0;
    server = createServer((request, response) => {
      requests += 1;
      response.writeHead(200, { "content-type": "application/json", "content-length": "100000" });
      response.write(`{${okEnvelope},"Surveys":[${surveys.map((survey) => JSON.stringify(survey)).join(",")},`);
      setTimeout(() => request.socket.destroy(), 20);
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const sds = harness.client({
      baseUrl: `http://127.0.0.1:${port}/api/v1`,
      fetch: (input, init) => fetch(input, init),
      retry: { limit: 2, initialDelay: 1 },
    });
    const { entries, error } = await drain(sds.surveys.stream());
    expect(entries.map((entry) => entry.survey)).toEqual(surveys);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(requests).toBe(1);
  });
});
