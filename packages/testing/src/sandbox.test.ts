import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { buildEntryLink } from "@sds/routing";
import { SurveyListResponse } from "@sds/schemas";
import { describe, expect, it } from "vitest";
import { callerFor } from "../test/http.ts";
import { hiddenConversion, startSandbox } from "./index.ts";

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

  it("starts no marketplace unless asked, and leaves the surveys' URLs alone", async () => {
    const sandbox = await startSandbox({ surveys: 3 });
    try {
      expect(sandbox.marketplace).toBeUndefined();
      expect(sandbox.marketplaceOrigin).toBeUndefined();
      for (const survey of sandbox.api.listSurveys(1001))
        expect(survey.SurveyUrl).toMatch(/^https:\/\/survey\.example\.com\/s\//);
    } finally {
      await sandbox.close();
    }
  });

  it("with the marketplace, entry links lead to it, and a visit ends in a redirect and an S2S call to the URLs the supplier set", async () => {
    const calls: string[] = [];
    const receiver = createServer((request, response) => {
      calls.push(request.url ?? "");
      response.writeHead(200).end("ok");
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const sandbox = await startSandbox({ seed: 3, surveys: 6, apiKey: "dev-key", marketplace: true });
    try {
      expect(sandbox.marketplaceOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sandbox.marketplaceOrigin).not.toBe(sandbox.origin);
      const call = callerFor(fetch, sandbox.baseUrl, "dev-key");
      const { Surveys } = SurveyListResponse.parse((await call("/surveys")).json);
      for (const survey of Surveys)
        expect(survey.SurveyUrl.startsWith(`${sandbox.marketplaceOrigin ?? "?"}/s/${survey.SurveyId}?`)).toBe(true);
      const routes = (outcome: string) => `${receiverOrigin}/v1/outcomes/${outcome}?vq_token=[#vq_tid#]`;
      const update = await call("/supplier-account/1001/s2s-redirect-url", {
        method: "PUT",
        body: {
          Enabled: true,
          CompleteUrl: routes("complete"),
          TerminateUrl: routes("terminate"),
          OverQuotaUrl: routes("overquota"),
          SecurityTerminateUrl: routes("security"),
        },
      });
      expect(update.status).toBe(200);

      const survey = Surveys.find((candidate) => candidate.SurveyUrl.includes("[#vq_tid#]"));
      if (survey === undefined) throw new Error("no survey with [#vq_tid#] among the sandbox's");
      const account = sandbox.api.getAccount(1001);
      const link = buildEntryLink(
        survey,
        { token: "tok-42", uid: "resp-1" },
        { encryption: account.IncomingEncryption },
      );
      const visit = await fetch(link, { redirect: "manual" });
      expect(visit.status).toBe(302);
      const { outcome } = (await visit.json()) as { outcome: string };
      expect(visit.headers.get("location")).toMatch(
        new RegExp(`/${outcome === "overquota" ? "overquota" : outcome}\\?`),
      );
      await sandbox.marketplace?.settle();
      expect(calls).toEqual([`/v1/outcomes/${outcome}?vq_token=tok-42`]);
    } finally {
      await sandbox.close();
      await new Promise<void>((resolve) =>
        receiver.close(() => {
          resolve();
        }),
      );
    }
  });

  it("with the marketplace, unplanned entries complete as often as the survey's hidden conversion says", async () => {
    const seed = 5;
    const sandbox = await startSandbox({ seed, surveys: 30, apiKey: "dev-key", marketplace: true });
    try {
      // No S2S calls: the generated account's URLs name hosts that do not exist.
      const s2s = sandbox.api.getAccount(1001).S2SUrls;
      expect(
        (
          await callerFor(
            fetch,
            sandbox.baseUrl,
            "dev-key",
          )("/supplier-account/1001/s2s-redirect-url", { method: "PUT", body: { ...s2s, Enabled: false } })
        ).status,
      ).toBe(200);
      const account = sandbox.api.getAccount(1001);
      const surveys = sandbox.api.listSurveys(1001).filter((candidate) => candidate.SurveyUrl.includes("[#vq_tid#]"));
      const rates = [];
      for (const survey of surveys.slice(0, 3)) {
        let completes = 0;
        const visits = 600;
        for (let index = 0; index < visits; index++) {
          const link = buildEntryLink(
            survey,
            { token: `t-${survey.SurveyId}-${index}` },
            { encryption: account.IncomingEncryption },
          );
          const result = await sandbox.marketplace?.enter(link);
          if (result?.outcome === "complete") completes++;
          expect(result?.outcome).not.toBe("security");
        }
        rates.push({ observed: completes / visits, hidden: hiddenConversion(survey, { seed }) });
      }
      expect(new Set(rates.map((rate) => rate.hidden.toFixed(2))).size).toBe(rates.length);
      for (const rate of rates) expect(Math.abs(rate.observed - rate.hidden)).toBeLessThan(0.07);
    } finally {
      await sandbox.close();
    }
  });

  it("with the marketplace, is told a respondent's true answers over HTTP and screens out those who miss a survey's qualifications", async () => {
    const sandbox = await startSandbox({ seed: 4, surveys: 20, apiKey: "dev-key", marketplace: true });
    try {
      const call = callerFor(fetch, sandbox.baseUrl, "dev-key");
      // No S2S calls: the generated account's URLs name hosts that do not exist.
      const s2s = sandbox.api.getAccount(1001).S2SUrls;
      await call("/supplier-account/1001/s2s-redirect-url", { method: "PUT", body: { ...s2s, Enabled: false } });
      expect(sandbox.marketplaceControlUrl).toBe(`${sandbox.marketplaceOrigin ?? "?"}/__sandbox`);
      const survey = sandbox.api
        .listSurveys(1001)
        .find(
          (candidate) =>
            candidate.SurveyUrl.includes("[#vq_tid#]") &&
            candidate.SurveyUrl.includes("[#vq_tuid#]") &&
            (sandbox.api.getSurvey(candidate.SurveyId)?.qualifications.length ?? 0) > 0,
        );
      if (survey === undefined) throw new Error("no survey with both placeholders and a qualification");
      const qualifications = sandbox.api.getSurvey(survey.SurveyId)?.qualifications ?? [];
      const meets = Object.fromEntries(
        qualifications.map((record) => [String(record.QualificationId), [record.OptionCodes[0] ?? ""]]),
      );
      const [first] = qualifications;
      const misses = { ...meets, [String(first?.QualificationId)]: ["no-such-answer"] };
      const tell = (uid: string, answers: unknown) =>
        fetch(`${sandbox.marketplaceControlUrl ?? "?"}/respondents/${encodeURIComponent(uid)}/answers`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ answers }),
        });
      const told = await tell("resp 1", misses);
      expect(told.status).toBe(200);
      expect(await told.json()).toMatchObject({ hasError: false, uid: "resp 1", answers: misses });
      const read = await fetch(`${sandbox.marketplaceControlUrl ?? "?"}/respondents/resp%201/answers`);
      expect(await read.json()).toMatchObject({ uid: "resp 1", answers: misses });

      const account = sandbox.api.getAccount(1001);
      const visit = async (token: string) => {
        const link = buildEntryLink(survey, { token, uid: "resp 1" }, { encryption: account.IncomingEncryption });
        const response = await fetch(link, { redirect: "manual" });
        return ((await response.json()) as { outcome: string }).outcome;
      };
      for (let index = 0; index < 5; index++) expect(await visit(`screened-${index}`)).toBe("terminate");
      expect((await tell("resp 1", meets)).status).toBe(200);
      const drawn = new Set<string>();
      for (let index = 0; index < 40; index++) drawn.add(await visit(`drawn-${index}`));
      expect(drawn.size).toBeGreaterThan(1);

      const refused = await tell("resp 1", { age: ["34"] });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ hasError: true, error: { errorCode: "VALIDATION_FAILED" } });
      const unknown = await fetch(`${sandbox.marketplaceControlUrl ?? "?"}/respondents/nobody/answers`);
      expect(unknown.status).toBe(404);
    } finally {
      await sandbox.close();
    }
  });

  it("closes the marketplace when the sandbox cannot listen", async () => {
    const first = await startSandbox({ surveys: 0 });
    try {
      await expect(
        startSandbox({ surveys: 0, port: first.port, marketplace: true, marketplacePort: 0 }),
      ).rejects.toMatchObject({ code: "EADDRINUSE" });
      await expect(startSandbox({ marketplacePort: 70_000 })).rejects.toThrow(/marketplacePort/);
    } finally {
      await first.close();
    }
  });
});
