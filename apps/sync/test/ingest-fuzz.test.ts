import fc from "fast-check";
import { buildSurvey } from "@sds/testing";
import { afterAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../src/inventory-store/postgres-store.ts";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import type { SyncStore } from "../src/inventory-store/store.ts";
import type { FetchFunction } from "../src/upstream/counting-fetch.ts";
import { isSurveyId } from "../src/survey-index/survey-id.ts";
import { createCycleHarness, type CycleHarness } from "./harness.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";

const available = await postgresAvailable();

/*
 * Ingest over generated upstream payloads: whatever Get Surveys answers (valid and broken
 * surveys, foreign values in any field, ids outside the rule, repeats, items that are no survey,
 * a body cut anywhere, hasError at its end, no list at all, no JSON at all), a cycle never throws,
 * a rejected cycle leaves the store exactly as it was, and an accepted one keeps the store's rules.
 */

const ids = fc.integer({ min: 1, max: 40 });
const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(-5, 0, 1.5, 2 ** 53, "x".repeat(3000), null, [], {}),
);
const surveyFields = Object.keys(buildSurvey({}, { seed: 1 }));

/** One item of the list: a valid survey, a survey with one field replaced, a survey with an odd id, or anything at all. */
const item = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .record({ id: ids, cpi: fc.integer({ min: 50, max: 900 }) })
      .map(({ id, cpi }) => buildSurvey({ SurveyId: id, Cpi: (cpi / 100).toFixed(2) }, { seed: id }) as unknown),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ id: ids, field: fc.constantFrom(...surveyFields), value: oddValue })
      .map(({ id, field, value }) => ({ ...buildSurvey({ SurveyId: id }, { seed: id }), [field]: value })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ id: ids, odd: oddValue })
      .map(({ id, odd }) => ({ ...buildSurvey({ SurveyId: id }, { seed: id }), SurveyId: odd })),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

/** The whole body of Get Surveys: the envelope around the items, then perhaps spoiled. */
const body = fc
  .record({
    items: fc.array(item, { maxLength: 14 }),
    spoil: fc.oneof(
      { weight: 6, arbitrary: fc.constant({ kind: "none" as const }) },
      {
        weight: 1,
        arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((keep) => ({ kind: "cut" as const, keep })),
      },
      { weight: 1, arbitrary: fc.constant({ kind: "hasError" as const }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((list) => ({ kind: "notAList" as const, list })) },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((text) => ({ kind: "garbage" as const, text })) },
    ),
  })
  .map(({ items, spoil }) => {
    const envelope = { status: "ok", hasError: false, messages: [], error: { errorCode: "" } };
    const text = JSON.stringify({ ...envelope, Surveys: items, SupplierId: 1001 });
    switch (spoil.kind) {
      case "none":
        return text;
      case "cut":
        return text.slice(0, Math.floor(text.length * spoil.keep));
      case "hasError":
        return `${text.slice(0, -1)},"hasError":true,"messages":["shard failed"]}`;
      case "notAList":
        return JSON.stringify({ ...envelope, Surveys: spoil.list, SupplierId: 1001 });
      case "garbage":
        return spoil.text;
    }
  });

/** What a consumer can read of the store. */
async function readable(store: SyncStore) {
  const { surveys } = await store.listSurveys({ status: "all", limit: 1000 });
  const details = await Promise.all(surveys.map((survey) => store.getSurvey(survey.id)));
  return { details, changes: await store.listChanges(0, 100_000), quarantine: await store.listQuarantine(1000) };
}

/** Answers Get Surveys with `next.body` when set; everything else reaches the fake. */
function listOverride(next: { body: string | undefined }): (fetch: FetchFunction) => FetchFunction {
  return (inner) => async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (next.body === undefined || !url.pathname.endsWith("/surveys")) return inner(input, init);
    return new Response(next.body, { status: 200, headers: { "content-type": "application/json; charset=utf-8" } });
  };
}

describe.each([
  [
    "SQLite",
    true,
    150,
    async () => ({ store: await openSqliteStore({ path: ":memory:" }), dispose: () => Promise.resolve() }),
  ],
  [
    "PostgreSQL",
    available,
    30,
    async () => {
      const schema = freshSchemaName("sds_sync_fuzz");
      return {
        store: await openPostgresStore({ connectionString: testDatabaseUrl, schema, poolSize: 2 }),
        dispose: () => dropSchema(schema),
      };
    },
  ],
] as const)("ingest of generated upstream payloads on %s", (_name, enabled, runs, open) => {
  let harness: CycleHarness | undefined;
  let dispose: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await harness?.close();
    await dispose?.();
  });

  it.skipIf(!enabled)(
    "never throws, leaves the store untouched when it rejects a cycle, and keeps the store's rules when it accepts one",
    async () => {
      const opened = await open();
      dispose = opened.dispose;
      const next: { body: string | undefined } = { body: undefined };
      harness = await createCycleHarness({ surveys: 8, store: opened.store, wrapFetch: listOverride(next) });
      const { store } = harness;
      const running = harness;
      const cycle = () => running.cycle();
      expect((await cycle()).status).toBe("succeeded");
      const outcomes = { succeeded: 0, failed: 0 };

      await fc.assert(
        fc.asyncProperty(body, async (text) => {
          const before = await readable(store);
          next.body = text;
          const result = await cycle();
          next.body = undefined;
          outcomes[result.status] += 1;
          if (process.env.FUZZ_DEBUG && result.status === "failed") console.info(result.error);
          const after = await readable(store);
          if (result.status === "failed") {
            expect(after).toEqual(before);
          } else {
            for (const detail of after.details) expect(isSurveyId(detail?.id)).toBe(true);
            expect(after.changes.map((change) => change.sequence)).toEqual(after.changes.map((_, index) => index + 1));
          }
        }),
        { numRuns: runs },
      );
      console.info(
        `ingest fuzz: ${runs} generated payloads (${outcomes.succeeded} accepted, ${outcomes.failed} rejected)`,
      );
      expect(outcomes.failed).toBeGreaterThan(0);
      expect(outcomes.succeeded).toBeGreaterThan(0);
    },
    120_000,
  );
});
