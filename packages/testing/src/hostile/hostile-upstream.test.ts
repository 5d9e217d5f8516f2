import { afterEach, describe, expect, it } from "vitest";
import { createFakeSupplierApi } from "../fake/create-fake-supplier-api.ts";
import { API_KEY_HEADER, DEFAULT_API_KEY } from "../fake/constants.ts";
import type { FakeServer, FakeSupplierApi } from "../fake/types.ts";
import { createHostileUpstream, type HostileUpstream } from "./create-hostile-upstream.ts";

let api: FakeSupplierApi;
let hostile: HostileUpstream;
afterEach(async () => {
  await hostile.close();
  await api.close();
});

function start(surveys = 3): HostileUpstream {
  api = createFakeSupplierApi({ seed: 3, suppliers: [{ supplierId: 1001, apiKey: DEFAULT_API_KEY, surveys }] });
  hostile = createHostileUpstream(api);
  return hostile;
}

const headers = { [API_KEY_HEADER]: DEFAULT_API_KEY };
const list = async (base = "http://fake.test/api/v1", signal?: AbortSignal) => {
  const response = await (base.startsWith("http://fake.test") ? hostile.fetch : fetch)(`${base}/surveys`, {
    headers,
    ...(signal ? { signal } : {}),
  });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
};

describe("the hostile upstream", () => {
  it("passes the fake's answers through unchanged until a scenario is played", async () => {
    start();
    const honest = await (await api.fetch("http://fake.test/api/v1/surveys", { headers })).text();
    expect((await list()).text).toBe(honest);
  });

  it("answers a well-formed empty list", async () => {
    start().use({ kind: "empty-list" });
    expect(JSON.parse((await list()).text)).toMatchObject({ hasError: false, Surveys: [] });
  });

  it("repeats listed surveys at the end with a different Name", async () => {
    start().use({ kind: "duplicate-ids", count: 2 });
    const surveys = (JSON.parse((await list()).text) as { Surveys: { SurveyId: number; Name: string }[] }).Surveys;
    expect(surveys).toHaveLength(5);
    expect(surveys.slice(3).map((survey) => survey.SurveyId)).toEqual(
      surveys.slice(0, 2).map((survey) => survey.SurveyId),
    );
    expect(surveys[3]?.Name).toBe(`${surveys[0]?.Name ?? ""} (copy)`);
  });

  it("writes out-of-range ids as digits JSON cannot hold exactly", async () => {
    start().use({ kind: "out-of-range-ids" });
    const { text } = await list();
    expect(text).toContain('"SurveyId":12345678901234567890');
    expect(text).toContain('"SurveyId":-5');
    expect(text).toContain('"SurveyId":"77"');
  });

  it("sends wrong types, oversize fields, HTML and hasError at the end", async () => {
    start().use({ kind: "wrong-types" });
    const typed = JSON.parse((await list()).text) as { Surveys: unknown[] };
    expect(typed.Surveys[0]).toMatchObject({ MobileAllowed: "yes", Qual_LastUpdatedOnUTC: 0 });
    expect(typed.Surveys.slice(-3)).toEqual([null, 42, "survey"]);

    hostile.use({ kind: "oversize-field", bytes: 100_000 });
    expect((JSON.parse((await list()).text) as { Surveys: { Name: string }[] }).Surveys[0]?.Name).toHaveLength(100_000);

    hostile.use({ kind: "html-body" });
    expect(await list()).toMatchObject({
      status: 200,
      type: "text/html; charset=utf-8",
      text: expect.stringMatching(/^<!DOCTYPE html>/) as unknown,
    });

    hostile.use({ kind: "error-at-end" });
    expect((await list()).text).toMatch(/"Surveys":\[.*\],"hasError":true,"messages":\[[^\]]+\]\}$/);
  });

  it("cuts the body short and storms 429s through the fake's own faults, and clear() removes them", async () => {
    start().use({ kind: "truncated-body", keep: 0.5 });
    const { text } = await list();
    expect(() => JSON.parse(text) as unknown).toThrow();
    hostile.use({ kind: "rate-limit-storm", retryAfterSeconds: 9999 });
    const response = await hostile.fetch("http://fake.test/api/v1/surveys", { headers });
    expect([response.status, response.headers.get("retry-after")]).toEqual([429, "9999"]);
    expect(api.faults.list()).toHaveLength(1);
    hostile.clear();
    expect(api.faults.list()).toHaveLength(0);
    expect((await list()).status).toBe(200);
  });

  it("revokes the key after the given number of requests", async () => {
    start().use({ kind: "unauthorized-mid-run", after: 2 });
    const statuses = [];
    for (let index = 0; index < 4; index++) statuses.push((await list()).status);
    expect(statuses).toEqual([200, 200, 401, 401]);
  });

  describe("over HTTP", () => {
    let server: FakeServer;
    const open = async () => {
      server = await hostile.listen();
      return server.baseUrl;
    };

    it("drips the body: headers at once, then a chunk per interval, complete in the end", async () => {
      start(1);
      const base = await open();
      const honest = (await list(base)).text;
      hostile.use({ kind: "drip", bytesPerChunk: Math.ceil(honest.length / 4), intervalMs: 50 });
      const began = performance.now();
      const response = await fetch(`${base}/surveys`, { headers });
      const headersAfter = performance.now() - began;
      const text = await response.text();
      const bodyAfter = performance.now() - began;
      expect(text).toBe(honest);
      // Measured from the headers, not from a fixed budget a loaded machine exceeds: the headers
      // come with the first chunk, the other three at least an interval apart each.
      expect(bodyAfter - headersAfter).toBeGreaterThanOrEqual(140);
    });

    it("hangs before the headers, or after part of the body, until the client gives up", async () => {
      start(1);
      const base = await open();
      hostile.use({ kind: "hang" });
      await expect(list(base, AbortSignal.timeout(200))).rejects.toThrow(/aborted|timeout/i);
      hostile.use({ kind: "hang", afterBytes: 10 });
      // The client gives up 300 ms after the headers, however long they took to come.
      const giveUp = new AbortController();
      const response = await fetch(`${base}/surveys`, { headers, signal: giveUp.signal });
      expect(response.status).toBe(200);
      setTimeout(() => {
        giveUp.abort();
      }, 300);
      await expect(response.text()).rejects.toThrow(/aborted|timeout/i);
    });
  });
});
