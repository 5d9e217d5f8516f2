import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LiveMatcher } from "../src/loop/live-matcher.ts";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import type { SyncStore } from "../src/inventory-store/store.ts";
import { emptyCommit, qualificationsOf, sampleSurvey, surveyWrite } from "./store-fixtures.ts";

/** More than two of the matcher's pages (1,000 surveys each), so a load has pages left to abandon. */
const SURVEYS = 2500;

/** A logger whose lines the test reads. */
function recordingLogger(): { logger: pino.Logger; messages: string[] } {
  const messages: string[] = [];
  const logger = pino(
    { level: "info" },
    { write: (line: string) => messages.push((JSON.parse(line) as { msg: string }).msg) },
  );
  return { logger, messages };
}

/** The store, with the number of survey pages read counted and a hook run after each. */
function countingPages(
  store: SyncStore,
  afterPage: (pages: number) => void,
): { store: SyncStore; pages: () => number } {
  let pages = 0;
  const getSurveys: SyncStore["getSurveys"] = async (ids) => {
    const details = await store.getSurveys(ids);
    pages += 1;
    afterPage(pages);
    return details;
  };
  // The store's methods use private fields: each is called on the store itself.
  const counted = new Proxy(store, {
    get(target, key) {
      if (key === "getSurveys") return getSurveys;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: counted, pages: () => pages };
}

describe("the matcher's load at start", () => {
  let directory: string;
  let store: SyncStore;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "sds-matcher-start-"));
    store = await openSqliteStore({ path: join(directory, "sds.db") });
    const surveys = Array.from({ length: SURVEYS }, (_, index) => sampleSurvey(1000 + index));
    await store.commitCycle(
      emptyCommit(new Date("2026-03-01T00:00:00Z"), {
        surveys: surveys.map((survey) => surveyWrite(survey)),
        qualifications: surveys.map((survey) => qualificationsOf(survey.SurveyId, 1)),
      }),
    );
  });
  afterAll(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("loads every page when no stop is asked for", async () => {
    const { logger, messages } = recordingLogger();
    const counted = countingPages(store, () => undefined);
    const matcher = new LiveMatcher({ store: counted.store, logger });
    await matcher.start(new AbortController().signal);
    expect(counted.pages()).toBe(3);
    expect(matcher.loaded).toBe(true);
    expect(matcher.matcher.size).toBe(SURVEYS);
    expect(messages).toContain("matcher loaded from the store");
  });

  it("abandons the load between pages once a stop is asked for, and installs nothing half-loaded", async () => {
    const { logger, messages } = recordingLogger();
    const stop = new AbortController();
    const counted = countingPages(store, (pages) => {
      if (pages === 1) stop.abort();
    });
    const matcher = new LiveMatcher({ store: counted.store, logger });
    await matcher.start(stop.signal);
    expect(counted.pages()).toBe(1);
    expect(matcher.loaded).toBe(false);
    expect(matcher.matcher.size).toBe(0);
    expect(messages).toContain("start: a stop was asked for; the matcher's load is abandoned");
    expect(messages).not.toContain("matcher loaded from the store");
  });

  it("loads in full on a later refresh, after an abandoned start", async () => {
    const stop = new AbortController();
    stop.abort();
    const matcher = new LiveMatcher({ store, logger: pino({ level: "silent" }) });
    await matcher.start(stop.signal);
    expect(matcher.loaded).toBe(false);
    await matcher.refresh();
    expect(matcher.loaded).toBe(true);
    expect(matcher.matcher.size).toBe(SURVEYS);
  });
});
