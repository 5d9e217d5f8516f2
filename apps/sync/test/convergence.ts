import fc from "fast-check";
import { Survey, type SurveyQualification, type SurveyQuota } from "@sds/schemas";
import type { FakeSupplierApi } from "@sds/testing";
import { expect } from "vitest";
import type { ChangeType, SyncStore } from "../src/inventory-store/store.ts";
import { createCycleHarness } from "./harness.ts";

/** One upstream change the property applies to the fake, or a sync cycle. */
export type Action =
  | {
      readonly kind: "update";
      readonly target: number;
      readonly field: "Cpi" | "Loi" | "MobileAllowed" | "Name";
      readonly value: number;
    }
  | { readonly kind: "qualifications"; readonly target: number; readonly count: number; readonly value: number }
  | { readonly kind: "quotas"; readonly target: number; readonly count: number }
  | { readonly kind: "toggleQuotas"; readonly target: number }
  | { readonly kind: "close" | "reopen" | "remove" | "corrupt" | "repair"; readonly target: number }
  | { readonly kind: "add" }
  | { readonly kind: "cycle" };

const target = fc.nat({ max: 1000 });
/** Sequences of upstream changes with cycles among them (every sequence ends with a cycle). */
export const actionsArbitrary = fc
  .array(
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant("update" as const),
          target,
          field: fc.constantFrom("Cpi" as const, "Loi" as const, "MobileAllowed" as const, "Name" as const),
          value: fc.nat({ max: 99 }),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant("qualifications" as const),
          target,
          count: fc.nat({ max: 3 }),
          value: fc.nat({ max: 9 }),
        }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant("quotas" as const), target, count: fc.nat({ max: 2 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("toggleQuotas" as const), target }) },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constantFrom(
            "close" as const,
            "reopen" as const,
            "remove" as const,
            "corrupt" as const,
            "repair" as const,
          ),
          target,
        }),
      },
      { weight: 1, arbitrary: fc.constant({ kind: "add" as const }) },
      { weight: 3, arbitrary: fc.constant({ kind: "cycle" as const }) },
    ),
    { maxLength: 40 },
  )
  .map((actions): Action[] => [...actions, { kind: "cycle" }]);

/** What the store must hold of one survey: the model's expectation. */
interface Expected {
  status: "live" | "closed";
  survey: Survey;
  qualifications: readonly SurveyQualification[];
  quotas: readonly SurveyQuota[];
  /** The `Qual_LastUpdatedOnUTC` the stored qualifications belong to, null while `Has_Qualifications` is false. */
  qualificationsMarker: string | null;
  /** The `Quota_LastUpdatedOnUTC` the stored quotas belong to, null while `Has_Quotas` is false. */
  quotasMarker: string | null;
}

const withoutTimestamps = (survey: Survey) => {
  const { LastUpdatedOnUTC: _a, Qual_LastUpdatedOnUTC: _b, Quota_LastUpdatedOnUTC: _c, ...rest } = survey;
  return rest;
};
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The specification of the store and the feed, written from the fake's state alone: given
 * what the store should hold and the fake's state at a cycle, the changes that cycle must
 * report (sorted) and what the store must hold after it.
 */
export class SyncModel {
  readonly expected = new Map<number, Expected>();

  /** The changes (sorted) a cycle run now must report; updates the expectation of the store. */
  expectCycle(api: FakeSupplierApi): [ChangeType, number][] {
    return expectCycle(this.expected, api);
  }

  /** Asserts the store holds exactly what the model expects. */
  assertStore(store: SyncStore): Promise<void> {
    return expectStoreMatches(store, this.expected);
  }
}

/**
 * The specification of the store and the feed, written from the fake's state alone: given
 * what the store should hold and the fake's state at a cycle, the changes that cycle must
 * report (sorted) and what the store must hold after it.
 */
function expectCycle(model: Map<number, Expected>, api: FakeSupplierApi): [ChangeType, number][] {
  const changes: [ChangeType, number][] = [];
  const liveIds = new Set<number>();
  for (const listed of api.listSurveys(1001, "live")) {
    const id = listed.SurveyId;
    liveIds.add(id);
    const record = api.getSurvey(id);
    // A malformed survey is quarantined: the store keeps what it had, and does not close it.
    if (!record || !Survey.safeParse(record.survey).success) continue;
    const next: Expected = {
      status: "live",
      survey: record.survey,
      // Has_Qualifications false, like Has_Quotas false: nothing is fetched and an empty list is stored.
      qualifications: record.survey.Has_Qualifications ? record.qualifications : [],
      qualificationsMarker: record.survey.Has_Qualifications ? record.survey.Qual_LastUpdatedOnUTC : null,
      quotas: record.survey.Has_Quotas ? record.quotas : [],
      quotasMarker: record.survey.Has_Quotas ? record.survey.Quota_LastUpdatedOnUTC : null,
    };
    const previous = model.get(id);
    model.set(id, next);
    if (!previous) changes.push(["opened", id]);
    else if (previous.status === "closed") changes.push(["reopened", id]);
    else {
      if (!sameJson(withoutTimestamps(previous.survey), withoutTimestamps(record.survey)))
        changes.push(["updated", id]);
      if (
        (next.qualificationsMarker !== null && next.qualificationsMarker !== previous.qualificationsMarker) ||
        (next.qualificationsMarker === null && previous.qualifications.length > 0)
      ) {
        changes.push(["qualifications_changed", id]);
      }
      if (
        (next.quotasMarker !== null && next.quotasMarker !== previous.quotasMarker) ||
        (next.quotasMarker === null && previous.quotas.length > 0)
      ) {
        changes.push(["quotas_changed", id]);
      }
    }
  }
  for (const [id, expected] of model) {
    if (expected.status === "live" && !liveIds.has(id)) {
      expected.status = "closed";
      changes.push(["closed", id]);
    }
  }
  return changes.sort(compareChanges);
}

/** Orders changes by survey, then type. */
export const compareChanges = (a: [ChangeType, number], b: [ChangeType, number]) =>
  a[1] - b[1] || a[0].localeCompare(b[0]);

function apply(api: FakeSupplierApi, action: Exclude<Action, { kind: "cycle" }>, nextId: () => number): void {
  if (action.kind === "add") {
    api.addSurvey(1001, { survey: { SurveyId: nextId() } });
    return;
  }
  const ids = api.listSurveys(1001, "all").map((survey) => survey.SurveyId);
  if (ids.length === 0) return;
  const id = ids[action.target % ids.length] ?? 0;
  const record = api.getSurvey(id);
  if (!record) return;
  switch (action.kind) {
    case "update": {
      const patch = {
        Cpi: { Cpi: `${action.value}.50` },
        Loi: { Loi: String(action.value + 1) },
        MobileAllowed: { MobileAllowed: action.value % 2 === 0 },
        Name: { Name: `Renamed ${action.value}` },
      }[action.field];
      if (Survey.safeParse(record.survey).success) api.updateSurvey(id, patch);
      return;
    }
    case "qualifications":
      api.replaceQualifications(
        id,
        Array.from({ length: action.count }, (_, index) => ({
          QualificationId: 10 + index,
          QualificationTypeId: 1,
          OptionIds: [action.value],
          OptionCodes: [String(action.value)],
        })),
      );
      return;
    case "quotas":
      api.replaceQuotas(
        id,
        Array.from({ length: action.count }, (_, index) => ({ QuotaId: 70 + index, Conditions: [] })),
      );
      return;
    case "toggleQuotas":
      if (Survey.safeParse(record.survey).success) api.updateSurvey(id, { Has_Quotas: !record.survey.Has_Quotas });
      return;
    case "close":
      if (record.live) api.closeSurvey(id);
      return;
    case "reopen":
      if (!record.live) api.reopenSurvey(id);
      return;
    case "remove":
      api.removeSurvey(id);
      return;
    case "corrupt":
      api.updateSurvey(id, { Cpi: 3 as unknown as string }, { allowInvalid: true });
      return;
    case "repair":
      if (!Survey.safeParse(record.survey).success) api.updateSurvey(id, { Cpi: "1.25" });
      return;
  }
}

async function expectStoreMatches(store: SyncStore, model: ReadonlyMap<number, Expected>): Promise<void> {
  const stored = await store.listSurveys({ status: "all", limit: 10_000 });
  expect(stored.surveys.map((survey) => survey.id)).toEqual([...model.keys()].sort((a, b) => a - b));
  for (const [id, expected] of model) {
    const detail = await store.getSurvey(id);
    expect(detail?.status, `status of ${id}`).toBe(expected.status);
    expect(detail?.survey, `record of ${id}`).toEqual(expected.survey);
    expect(detail?.qualifications, `qualifications of ${id}`).toEqual(expected.qualifications);
    expect(detail?.quotas, `quotas of ${id}`).toEqual(expected.quotas);
    expect(detail?.needsRefetch).toBe(false);
  }
}

/**
 * The convergence property: after any sequence of upstream changes, every cycle reports exactly
 * the changes the model derives from the fake, the feed stays gapless, and the store equals the
 * fake's live state plus the closed history.
 */
export async function checkConvergence(
  actions: readonly Action[],
  openStore: () => Promise<{ store: SyncStore; dispose: () => Promise<void> }>,
): Promise<void> {
  const { store, dispose } = await openStore();
  const harness = await createCycleHarness({
    surveys: [
      { survey: { SurveyId: 1, Has_Quotas: true } },
      { survey: { SurveyId: 2, Has_Quotas: false } },
      { survey: { SurveyId: 3 } },
    ],
    store,
  });
  let id = 100;
  const model = new Map<number, Expected>();
  let sequence = 0;
  try {
    for (const action of actions) {
      if (action.kind !== "cycle") {
        apply(harness.api, action, () => (id += 1));
        continue;
      }
      const expected = expectCycle(model, harness.api);
      const result = await harness.cycle();
      expect(result.status).toBe("succeeded");
      const changes = await store.listChanges(sequence, 10_000);
      expect(changes.map((change) => change.sequence)).toEqual(changes.map((_, index) => sequence + index + 1));
      sequence += changes.length;
      expect(
        changes.map((change): [ChangeType, number] => [change.type, change.surveyId]).sort(compareChanges),
      ).toEqual(expected);
      await expectStoreMatches(store, model);
    }
  } finally {
    await harness.close();
    await dispose();
  }
}
