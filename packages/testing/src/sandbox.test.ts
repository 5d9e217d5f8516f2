import { SurveyListResponse } from "@sds/schemas";
import { describe, expect, it } from "vitest";
import { callerFor } from "../test/http.ts";
import { startSandbox } from "./index.ts";

describe("startSandbox", () => {
  it("serves seeded surveys at a base URL ending in /api/v1, with control routes on", async () => {
    const sandbox = await startSandbox({ port: 0, seed: 12, surveys: 250, apiKey: "dev-key" });
    try {
      expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
      expect(sandbox.baseUrl).toBe(`${sandbox.origin}/api/v1`);
      expect(sandbox.controlUrl).toBe(`${sandbox.origin}/__sandbox`);
      expect(sandbox.keys).toEqual([{ supplierId: 1001, apiKey: "dev-key" }]);
      const call = callerFor(fetch, sandbox.baseUrl, "dev-key");
      const list = SurveyListResponse.parse((await call("/surveys")).json);
      expect(list.Surveys).toHaveLength(250);
      expect((await call("//__sandbox/suppliers")).status).toBe(200);
      expect((await call("/surveys", { key: "other" })).status).toBe(401);
    } finally {
      await sandbox.close();
    }
  });

  it("gives the same surveys and keys for the same seed, and other ones for another seed", async () => {
    const fixed = () => new Date("2026-04-01T00:00:00.000Z");
    const surveysOf = async (seed: number) => {
      const sandbox = await startSandbox({ seed, surveys: 20, suppliers: 2, now: fixed });
      try {
        const [first] = sandbox.keys;
        const call = callerFor(fetch, sandbox.baseUrl, first?.apiKey ?? "");
        return { keys: sandbox.keys, body: (await call("/surveys")).text };
      } finally {
        await sandbox.close();
      }
    };
    const one = await surveysOf(1);
    expect(one).toEqual(await surveysOf(1));
    const other = await surveysOf(2);
    expect(other.body).not.toBe(one.body);
    expect(other.keys).not.toEqual(one.keys);
    expect(one.keys.map((key) => key.supplierId)).toEqual([1001, 1002]);
    expect(new Set(one.keys.map((key) => key.apiKey)).size).toBe(2);
    for (const key of one.keys) expect(key.apiKey).toMatch(/^sbx_\d+_[0-9a-f]{24}$/);
  });

  it("listens on the port it is given", async () => {
    const probe = await startSandbox({ surveys: 0 });
    const port = probe.port;
    await probe.close();
    const sandbox = await startSandbox({ port, surveys: 0 });
    try {
      expect(sandbox.port).toBe(port);
      await expect(startSandbox({ port, surveys: 0 })).rejects.toMatchObject({ code: "EADDRINUSE" });
    } finally {
      await sandbox.close();
    }
  });

  it("refuses invalid options before starting anything", async () => {
    await expect(startSandbox({ port: 70_000 })).rejects.toThrow(/port/);
    await expect(startSandbox({ port: -1 })).rejects.toThrow(/port/);
    await expect(startSandbox({ surveys: -5 })).rejects.toThrow(/surveys/);
    await expect(startSandbox({ surveys: 2.5 })).rejects.toThrow(/surveys/);
    await expect(startSandbox({ seed: Number.NaN })).rejects.toThrow(/seed/);
    await expect(startSandbox({ apiKey: "" })).rejects.toThrow(/apiKey/);
    await expect(startSandbox({ apiKey: "has space" })).rejects.toThrow(/apiKey/);
    await expect(startSandbox({ suppliers: 0 })).rejects.toThrow(/suppliers/);
  });
});
