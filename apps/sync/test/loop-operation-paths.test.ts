import {
  createFakeSupplierApi,
  DEFAULT_API_KEY,
  DEFAULT_SUPPLIER_ID,
  RECONTACT_STUDY_TYPE_ID,
  type FakeSupplierApi,
  type SurveyInit,
} from "@sds/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { SyncConfig } from "../src/config/config.ts";
import { waitFor } from "./harness.ts";
import { loopSurvey } from "./loop-surveys.ts";
import { unsignedOutcomes } from "./loop-traffic.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * SDS_OPERATION_PATHS reaches every client sds-sync makes against the upstream: the loop's (survey
 * groups, re-contact lists) and the cycle's (collections), and the request counter names the
 * overridden paths by their operation. The fake serves only the default paths, so a path pointed
 * elsewhere shows in its request log and turns the data unavailable.
 */

const [A, B, C] = [9301, 9302, 9303] as const;
const open = (id: number, extra: Partial<NonNullable<SurveyInit["survey"]>> = {}): SurveyInit =>
  loopSurvey(id, { Cpi: "5", ...extra });

interface InventoryData {
  groups: { surveys: number; unavailable: number };
  recontact: { studies: number; unavailable: number };
}

describe("SDS_OPERATION_PATHS in a running sds-sync", () => {
  let api: FakeSupplierApi | undefined;
  let harness: ServiceHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    await api?.close();
    harness = undefined;
    api = undefined;
  });

  async function start(config: Partial<SyncConfig>): Promise<ServiceHarness> {
    api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys: [
            open(A, { Has_Survey_Groups: true }),
            open(B, { Has_Survey_Groups: true }),
            open(C, { StudyTypeId: RECONTACT_STUDY_TYPE_ID }),
          ],
          account: { OutgoingEncryption: unsignedOutcomes },
        },
      ],
    });
    api.addToSurveyGroup(7300, A);
    api.addToSurveyGroup(7300, B);
    api.replaceRecontactRespondents(C, [{ PID: "vip-1" }]);
    harness = await startServiceHarness({ api, config: { maxClosureShare: 1, groupsRefreshSeconds: 1, ...config } });
    return harness;
  }

  /** Runs cycles (the routing data is fetched after each) until `done` holds for `loop.inventoryData`. */
  async function waitUntil(service: ServiceHarness, done: (data: InventoryData) => boolean): Promise<void> {
    await waitFor(async () => {
      await service.request("/v1/sync/run", { method: "POST" });
      const status = (await (await service.request("/v1/sync/status")).json()) as {
        loop: { inventoryData: InventoryData };
      };
      return done(status.loop.inventoryData);
    }, 20_000);
  }

  /** `sds_sync_upstream_requests_total` for one operation and status, from `/metrics`. */
  async function requestsCounted(service: ServiceHarness, operation: string, status: number): Promise<number> {
    const metrics = await (await service.request("/metrics")).text();
    const pattern = new RegExp(
      `^sds_sync_upstream_requests_total\\{operation="${operation}",status="${status}"\\} (\\d+)$`,
      "m",
    );
    return Number(pattern.exec(metrics)?.[1] ?? 0);
  }

  const pathsRequested = (prefix: string): string[] =>
    (api?.requestLog() ?? []).map((entry) => entry.path).filter((path) => path.startsWith(prefix));

  it("sends Get Survey Groups, Get ReContact Respondents and a collection to the overridden paths, and counts them under their operations", async () => {
    const service = await start({
      operationPaths: {
        getSurveyGroups: "/groups/{surveyId}",
        listRecontactRespondents: "/recontacts/{surveyId}",
        listIndustries: "/industries",
      },
    });
    await waitUntil(service, (data) => data.groups.unavailable >= 2 && data.recontact.unavailable >= 1);

    expect(new Set(pathsRequested("/api/v1/groups/"))).toEqual(new Set([`/api/v1/groups/${A}`, `/api/v1/groups/${B}`]));
    expect(pathsRequested("/api/v1/recontacts/")).toContain(`/api/v1/recontacts/${C}`);
    expect(pathsRequested("/api/v1/industries")).not.toEqual([]);
    expect(pathsRequested("/api/v1/survey-groups/")).toEqual([]);
    expect(pathsRequested("/api/v1/recontact-respondents/")).toEqual([]);
    expect(pathsRequested("/api/v1/collection/industries")).toEqual([]);
    // The fake serves none of them: 404s, counted under the operation, not as "unknown".
    expect(await requestsCounted(service, "getSurveyGroups", 404)).toBeGreaterThanOrEqual(2);
    expect(await requestsCounted(service, "listRecontactRespondents", 404)).toBeGreaterThanOrEqual(1);
    expect(await requestsCounted(service, "listIndustries", 404)).toBeGreaterThanOrEqual(1);
    expect(await requestsCounted(service, "unknown", 404)).toBe(0);
  });

  it("reads the groups and re-contact lists at their default paths without overrides", async () => {
    const service = await start({});
    await waitUntil(
      service,
      (data) =>
        data.groups.surveys >= 2 &&
        data.recontact.studies >= 1 &&
        data.groups.unavailable === 0 &&
        data.recontact.unavailable === 0,
    );
    expect(new Set(pathsRequested("/api/v1/survey-groups/"))).toEqual(
      new Set([`/api/v1/survey-groups/${A}`, `/api/v1/survey-groups/${B}`]),
    );
    expect(pathsRequested("/api/v1/groups/")).toEqual([]);
    expect(await requestsCounted(service, "getSurveyGroups", 200)).toBeGreaterThanOrEqual(2);
  });
});
