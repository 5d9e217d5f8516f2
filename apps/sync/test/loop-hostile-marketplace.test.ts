import { encryptionSigning } from "@sds/routing";
import type { EncryptionSettings } from "@sds/schemas";
import {
  createFakeSupplierApi,
  createHostileMarketplace,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  type FakeSupplierApi,
  type HostileCallback,
} from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { OutcomeRecord } from "../src/loop/store/loop-store.ts";
import { waitFor } from "./harness.ts";
import { storeCases } from "./store-cases.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * sds-sync's S2S outcome receiver against @sds/testing's hostile marketplace, on both stores:
 * forged and replayed callbacks (the Host-header tricks included), browser-made calls, tokens
 * a database or a URL cannot hold, outcomes before their entry, outcome flips, and an account
 * whose OutgoingEncryption cannot be used. Each attack is refused (4xx, never 5xx) and records
 * nothing, and every refusal is counted.
 */

const outgoing: EncryptionSettings = {
  Enabled: true,
  Algorithm: "SHA256",
  QueryParameter: "sig",
  EncryptionKey: "s2s-secret-key-of-the-test",
};
const unsigned: EncryptionSettings = {
  Enabled: false,
  Algorithm: "SHA256",
  QueryParameter: "hash",
  EncryptionKey: null,
};

const { stores, usable } = storeCases("sds_sync_hostile_loop");

describe.each(stores)("the outcome receiver against a hostile marketplace on $name", (store) => {
  let harness: ServiceHarness | undefined;
  let api: FakeSupplierApi | undefined;
  afterEach(async () => {
    await harness?.close();
    await api?.close();
    harness = undefined;
    api = undefined;
  });

  async function start(account: { OutgoingEncryption: EncryptionSettings }): Promise<ServiceHarness> {
    api = createFakeSupplierApi({
      suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 3, account }],
    });
    const database = store.database();
    harness = await startServiceHarness({ api, config: { maxClosureShare: 1 }, ...(database ? { database } : {}) });
    return harness;
  }

  async function issue(service: ServiceHarness, token: string): Promise<void> {
    const [survey] = service.api.listSurveys(DEFAULT_SUPPLIER_ID);
    await waitFor(async () => {
      const response = await service.request("/v1/entry-links", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ surveyId: survey?.SurveyId, token, uid: `uid-${token}` }),
      });
      return response.status === 201 || response.status === 200;
    }, 20_000);
  }

  const outcomes = async (service: ServiceHarness) =>
    ((await (await service.request("/v1/outcomes?limit=1000")).json()) as { outcomes: OutcomeRecord[] }).outcomes;
  const expectRefused = (attempts: readonly HostileCallback[]) => {
    for (const attempt of attempts) {
      expect(attempt.error, attempt.variant).toBeUndefined();
      expect(attempt.response?.status, `${attempt.variant}: ${attempt.response?.body ?? ""}`).toBeGreaterThanOrEqual(
        400,
      );
      expect(attempt.response?.status, `${attempt.variant} must be refused, not fail`).toBeLessThan(500);
    }
  };

  it("refuses forged, replayed and Host-trick callbacks, browser calls and malformed tokens, records nothing of them, and counts each refusal", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start({ OutgoingEncryption: outgoing });
    await issue(service, "genuine-token");
    await issue(service, "victim-token");
    const signing = encryptionSigning(outgoing);
    if (!signing) throw new Error("the test account signs");
    const marketplace = createHostileMarketplace({ receiverUrl: service.service.outcomesUrl, signing });
    expect((await marketplace.genuineCallback({ token: "genuine-token" })).response?.status).toBe(200);

    expectRefused(await marketplace.forgedCallbacks({ token: "victim-token" }));
    const replays = await marketplace.replayedCallbacks({ token: "genuine-token", otherToken: "victim-token" });
    // The exact replay of a genuine call, and the POST of it (its body token is not read), are repeats of the genuine outcome: nothing new.
    const repeats = replays.filter(
      (attempt) => attempt.variant === "exact" || attempt.variant === "post-with-other-token",
    );
    for (const attempt of repeats)
      expect(JSON.parse(attempt.response?.body ?? "{}")).toMatchObject({
        recorded: false,
        outcome: { token: "genuine-token" },
      });
    expectRefused(replays.filter((attempt) => !repeats.includes(attempt)));
    expect(replays.map((attempt) => attempt.variant)).toContain("host-header-fragment");
    expectRefused(await marketplace.browserCallbacks({ token: "victim-token" }));
    expectRefused([await marketplace.oversizedToken()]);
    expectRefused(await marketplace.malformedTokens());

    const recorded = await outcomes(service);
    expect(recorded.map((record) => [record.token, record.outcome])).toEqual([["genuine-token", "complete"]]);
    const status = (await (await service.request("/v1/sync/status")).json()) as {
      loop: { refused: { total: number; byReason: Record<string, number> } };
    };
    expect(status.loop.refused.total).toBeGreaterThan(20);
    for (const reason of ["bad_signature", "browser_context", "bad_token"])
      expect(status.loop.refused.byReason[reason], reason).toBeGreaterThan(0);
    const metrics = await (await service.request("/metrics")).text();
    expect(metrics).toMatch(/sds_sync_outcome_calls_refused_total\{reason="bad_signature"\} [1-9]/);
  });

  it("with OutgoingEncryption off: attaches an outcome that came before its entry, records every flip, refuses browser calls, and warns", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start({ OutgoingEncryption: unsigned });
    const marketplace = createHostileMarketplace({ receiverUrl: service.service.outcomesUrl });
    const early = await marketplace.callbackBeforeEntry({ token: "late-entry" });
    expect(early.response?.status).toBe(200);
    await issue(service, "late-entry");
    // The marketplace's real call then finds the entry already complete: a repeat, and conversion counts it.
    expect(
      JSON.parse((await marketplace.genuineCallback({ token: "late-entry" })).response?.body ?? "{}"),
    ).toMatchObject({ recorded: false });
    await issue(service, "flipper");
    const flips = await marketplace.outcomeFlips("flipper");
    expect(
      flips
        .map((attempt) => JSON.parse(attempt.response?.body ?? "{}") as { recorded: boolean })
        .map((body) => body.recorded),
    ).toEqual([true, true, true]);
    expectRefused(await marketplace.browserCallbacks({ token: "flipper", outcome: "terminate" }));
    const flipperHistory = (await outcomes(service))
      .filter((record) => record.token === "flipper")
      .map((record) => record.outcome);
    expect(flipperHistory).toEqual(["complete", "terminate", "complete"]);

    const status = (await (await service.request("/v1/sync/status")).json()) as {
      loop: {
        totals: { lifetime: { entries: number; completes: number } };
        warnings: string[];
        orphans: { tokens: number };
      };
    };
    expect(status.loop.totals.lifetime).toMatchObject({ entries: 2, completes: 2 });
    expect(status.loop.orphans.tokens).toBe(0);
    expect(status.loop.warnings.join()).toMatch(/unsigned/);
    const ready = (await (await service.request("/readyz")).json()) as { warnings?: string[] };
    expect(ready.warnings?.join()).toMatch(/unsigned/);
    expect(await (await service.request("/metrics")).text()).toMatch(/^sds_sync_outcomes_unsigned 1$/m);
  });

  it("answers 400, never 500 or 503, to bodies and tokens a store, a URL or the stack cannot take", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start({ OutgoingEncryption: unsigned });
    const [survey] = service.api.listSurveys(DEFAULT_SUPPLIER_ID);
    const send = (path: string, body: string) =>
      service.request(path, { method: "POST", headers: { "content-type": "application/json" }, body });
    const nested = "[".repeat(32_000) + "]".repeat(32_000);
    for (const path of ["/v1/match", "/v1/entry-links", "/v1/respondents/history", "/v1/outcomes/reconcile"])
      expect((await send(path, nested)).status, path).toBe(400);
    const bad = [
      { surveyId: survey?.SurveyId, token: "lone-\\ud800-surrogate" },
      { surveyId: survey?.SurveyId, token: "ok", uid: "lone-\\udc00" },
      { surveyId: survey?.SurveyId, token: "nul-\\u0000-byte" },
      { surveyId: survey?.SurveyId, token: "x".repeat(201) },
    ];
    // Written as JSON text by hand: JSON.stringify would not keep a lone surrogate escaped as the attacker sends it.
    for (const body of bad) {
      const text = `{"surveyId":${String(body.surveyId)},"token":"${body.token}"${body.uid === undefined ? "" : `,"uid":"${body.uid}"`}}`;
      const response = await send("/v1/entry-links", text);
      expect(response.status, text.slice(0, 80)).toBe(400);
    }
    expect((await send("/v1/match", '{"answers":{},"uid":"\u0000"}')).status).toBe(400);
  });

  // it.for, not it.each: only it.for hands the test its context (to skip without PostgreSQL).
  it.for([
    ["enabled with an empty key", { Enabled: true, Algorithm: "SHA256", QueryParameter: "sig", EncryptionKey: "" }],
    [
      "an unknown algorithm",
      { Enabled: true, Algorithm: "SHA3-256", QueryParameter: "sig", EncryptionKey: "a-long-enough-secret-key" },
    ],
  ] as const)(
    "answers 503 with Retry-After to every outcome while OutgoingEncryption is %s, and every other route keeps answering",
    async ([, settings], context) => {
      if (!usable(store)) context.skip();
      const service = await start({ OutgoingEncryption: settings });
      await issue(service, "kept");
      const marketplace = createHostileMarketplace({ receiverUrl: service.service.outcomesUrl });
      const call = await marketplace.genuineCallback({ token: "kept" });
      expect(call.response?.status).toBe(503);
      expect(call.response?.headers["retry-after"]).toBe("60");
      expect(JSON.parse(call.response?.body ?? "{}")).toMatchObject({ error: { code: "outcomes_unverifiable" } });
      const status = await service.request("/v1/sync/status");
      expect(status.status).toBe(200);
      expect(((await status.json()) as { loop: { account: { problem: string } } }).loop.account.problem).toMatch(
        /OutgoingEncryption/,
      );
      expect((await service.request("/readyz")).status).toBe(200);
      expect(await (await service.request("/metrics")).text()).toMatch(
        /^sds_sync_encryption_misconfigured\{direction="outgoing"\} 1$/m,
      );
      expect(await outcomes(service)).toEqual([]);
    },
  );
});
