import {
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  RECONTACT_STUDY_TYPE_ID,
  type FakeSupplierApi,
  type MalformedBodyKind,
  type SurveyInit,
} from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../src/common/logger.ts";
import { waitFor } from "./harness.ts";
import { ManualClock } from "./manual-clock.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { postJson, unsignedOutcomes } from "./loop-traffic.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * The upstream's survey groups and re-contact lists go bad under a running sds-sync (a 404 from
 * a deployment without the guessed path, an HTML login page, a cut body, wrong types): it must
 * not empty the inventory, must say so (warning, gauge, status), must keep re-contact studies
 * out, and must take the data back once the upstream heals.
 */

const GROUP = 7200;
const [A, B, C, D] = [9201, 9202, 9203, 9204] as const;
const open = (id: number, extra: Partial<NonNullable<SurveyInit["survey"]>> = {}): SurveyInit =>
  loopSurvey(id, { Cpi: String(10 - (id - A)), ...extra });
const kinds: readonly MalformedBodyKind[] = ["not-found", "html", "truncated-json", "wrong-types"];

interface Status {
  loop: {
    matcher: { surveys: number };
    inventoryData: {
      groups: { surveys: number; unavailable: number };
      recontact: { studies: number; unavailable: number };
    };
  };
}

describe("respondent-aware routing against a hostile upstream", () => {
  let api: FakeSupplierApi | undefined;
  let harness: ServiceHarness | undefined;
  let log: string[] = [];
  /** The loop's clock: each cycle below comes a refresh period later, so the routing data is due without waiting for it. */
  let clock = new ManualClock();
  afterEach(async () => {
    await harness?.close();
    await api?.close();
    harness = undefined;
    api = undefined;
    log = [];
    clock = new ManualClock();
  });

  async function start(config: Record<string, unknown> = {}): Promise<ServiceHarness> {
    api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys: [
            open(A, { Has_Survey_Groups: true }),
            open(B, { Has_Survey_Groups: true }),
            open(C, { StudyTypeId: RECONTACT_STUDY_TYPE_ID }),
            open(D),
          ],
          account: { OutgoingEncryption: unsignedOutcomes },
        },
      ],
    });
    api.addToSurveyGroup(GROUP, A);
    api.addToSurveyGroup(GROUP, B);
    api.replaceRecontactRespondents(C, [{ PID: "vip-1" }]);
    harness = await startServiceHarness({
      api,
      // Groups and lists are fetched again once older than a second: each cycle below comes a
      // second later on the loop's clock, so it refreshes them.
      config: { maxClosureShare: 1, groupsRefreshSeconds: 1, ...config },
      clock,
      logger: createLogger("info", { destination: { write: (line: string) => void log.push(line) } }),
    });
    await waitUntil(
      harness,
      (status) => status.loop.inventoryData.groups.surveys >= 2 && status.loop.inventoryData.recontact.studies >= 1,
    );
    return harness;
  }
  const matched = async (service: ServiceHarness, uid?: string) => {
    const answer = (await (await postJson(service, "/v1/match", { answers: {}, ...(uid ? { uid } : {}) })).json()) as {
      surveys: { SurveyId: number }[];
    };
    return answer.surveys.map((survey) => survey.SurveyId).sort((x, y) => x - y);
  };
  const explained = async (service: ServiceHarness, uid: string, surveyId: number) => {
    const answer = (await (await postJson(service, "/v1/match", { answers: {}, uid, explain: surveyId })).json()) as {
      explanation: { reasons: { kind: string; message: string }[] };
    };
    return answer.explanation.reasons;
  };
  /** Runs cycles, each a refresh period later (so each refreshes the routing data), until the status says what `done` wants. */
  async function waitUntil(service: ServiceHarness, done: (status: Status) => boolean): Promise<Status> {
    let last: Status | undefined;
    await waitFor(async () => {
      clock.advance(1000);
      await postJson(service, "/v1/sync/run", {});
      last = (await (await service.request("/v1/sync/status")).json()) as Status;
      return done(last);
    }, 20_000);
    return last as Status;
  }
  const gauge = async (service: ServiceHarness, kind: string) => {
    const metrics = await (await service.request("/metrics")).text();
    const line = new RegExp(`^sds_sync_routing_data_unavailable\\{kind="${kind}"\\} (\\d+)$`, "m").exec(metrics);
    return line ? Number(line[1]) : undefined;
  };

  it.each(kinds)(
    "routes as if there were no groups while Get Survey Groups answers %s, says so, and takes the groups back when it heals",
    async (body) => {
      const service = await start();
      expect(await gauge(service, "groups")).toBe(0);
      expect((await postJson(service, "/v1/entry-links", { surveyId: A, token: `${body}-a`, uid: "r1" })).status).toBe(
        201,
      );
      expect(await matched(service, "r1")).toEqual([D]);

      service.hostile.use({ kind: "malformed-survey-groups", body });
      const broken = await waitUntil(service, (status) => status.loop.inventoryData.groups.unavailable >= 2);
      // Nothing left the inventory: every survey is still in the matcher, only the group rule is off for A and B.
      expect(broken.loop.matcher.surveys).toBe(4);
      expect(await matched(service)).toEqual([A, B, D]);
      expect(await matched(service, "r1")).toEqual([B, D]);
      expect(await gauge(service, "groups")).toBe(2);
      expect(
        log.some((line) => /survey groups could not be read for \d+ surveys.*as if they had no groups/.test(line)),
      ).toBe(true);

      service.hostile.clear();
      const healed = await waitUntil(service, (status) => status.loop.inventoryData.groups.unavailable === 0);
      expect(healed.loop.inventoryData.groups.surveys).toBeGreaterThanOrEqual(2);
      expect(await matched(service, "r1")).toEqual([D]);
      expect(await gauge(service, "groups")).toBe(0);
    },
  );

  it.each(kinds)(
    "keeps a re-contact study out, even for the respondents on its list, while its list answers %s",
    async (body) => {
      const service = await start();
      expect(await matched(service, "vip-1")).toEqual([A, B, C, D]);

      service.hostile.use({ kind: "malformed-recontact-respondents", body });
      await waitUntil(service, (status) => status.loop.inventoryData.recontact.unavailable >= 1);
      expect(await matched(service, "vip-1")).toEqual([A, B, D]);
      expect((await explained(service, "vip-1", C)).map((reason) => reason.kind)).toEqual(["recontact"]);
      const refused = await postJson(service, "/v1/entry-links", { surveyId: C, token: `${body}-c`, uid: "vip-1" });
      expect(refused.status).toBe(409);
      expect(await gauge(service, "recontact")).toBe(1);
      expect(log.some((line) => /re-contact lists could not be read/.test(line))).toBe(true);

      service.hostile.clear();
      await waitUntil(service, (status) => status.loop.inventoryData.recontact.unavailable === 0);
      expect(await matched(service, "vip-1")).toEqual([A, B, C, D]);
    },
  );

  it("routes by SYNC_RECONTACT_STUDY_TYPES alone, and says so, when a successful cycle could not read the StudyTypes collection", async () => {
    // A fresh store whose upstream never serves StudyTypes: the start-up cycle succeeds without it.
    const fake = loopFake([open(A), open(C, { StudyTypeId: RECONTACT_STUDY_TYPE_ID }), open(D, { StudyTypeId: 5 })]);
    api = fake;
    fake.faults.add({ kind: "status", status: 404, path: "/collection/studytypes" });
    fake.replaceRecontactRespondents(C, [{ PID: "vip-1" }]);
    harness = await startServiceHarness({
      api: fake,
      config: { maxClosureShare: 1, recontactStudyTypes: [RECONTACT_STUDY_TYPE_ID] },
      clock,
      logger: createLogger("info", { destination: { write: (line: string) => void log.push(line) } }),
    });
    const service = harness;
    await waitUntil(service, (status) => status.loop.inventoryData.recontact.studies >= 1);
    // Nothing waits for the collection any longer; the configured type still marks C a re-contact study.
    expect(await matched(service, "someone")).toEqual([A, D]);
    expect(await matched(service, "vip-1")).toEqual([A, C, D]);
    expect(
      log.some((line) =>
        /StudyTypes collection could not be read: only the study types of SYNC_RECONTACT_STUDY_TYPES/.test(line),
      ),
    ).toBe(true);
  });

  it("keeps the surveys whose group list cannot be read out altogether with SYNC_MISSING_GROUPS=exclude", async () => {
    const service = await start({ missingGroups: "exclude" });
    expect(await matched(service)).toEqual([A, B, D]);
    service.hostile.use({ kind: "malformed-survey-groups", body: "html" });
    expect((await postJson(service, "/v1/entry-links", { surveyId: A, token: "before", uid: "r2" })).status).toBe(201);
    await waitUntil(service, (status) => status.loop.inventoryData.groups.unavailable >= 2);
    expect(await matched(service)).toEqual([D]);
    expect(await matched(service, "anyone")).toEqual([D]);
    // No link into a survey held out for everyone; a retry of a link issued before still gets its link back.
    const held = await postJson(service, "/v1/entry-links", { surveyId: B, token: "held", uid: "r3" });
    expect([held.status, ((await held.json()) as { error: { code: string } }).error.code]).toEqual([
      409,
      "survey_unroutable",
    ]);
    expect((await postJson(service, "/v1/entry-links", { surveyId: A, token: "before", uid: "r2" })).status).toBe(200);
    service.hostile.clear();
    await waitUntil(service, (status) => status.loop.inventoryData.groups.unavailable === 0);
    expect(await matched(service)).toEqual([A, B, D]);
  });
});
