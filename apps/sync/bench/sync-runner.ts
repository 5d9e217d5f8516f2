/** sds-sync's cycle wired as the service wires it, for the benchmarks: client, counted fetch, SQLite file store. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_API_KEY } from "@sds/testing";
import { pino } from "pino";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import { createClientUpstream } from "../src/upstream/client-upstream.ts";
import { TaskPool } from "../src/cycle/task-pool.ts";
import { countingFetch, operationMatcher } from "../src/upstream/counting-fetch.ts";
import type { CycleResult } from "../src/cycle/cycle-result.ts";
import { runCycle } from "../src/cycle/run-cycle.ts";
import { SurveyIndex } from "../src/survey-index/survey-index.ts";

/** One measured run: wall time and upstream requests. */
export interface Measured {
  readonly ms: number;
  readonly requests: number;
}

/** A cycle runner against a fake at `baseUrl`. */
export interface SyncRunner {
  cycle(): Promise<Measured & { readonly result: CycleResult }>;
  /** The naive approach: list, then every survey's qualifications, with the same client and concurrency. */
  naive(): Promise<Measured>;
  /** The floor: the same requests as {@link SyncRunner.naive} with bare `fetch` and `JSON.parse`, no client, no validation, no store. */
  floor(): Promise<Measured>;
  close(): Promise<void>;
}

export async function createSyncRunner(baseUrl: string, concurrency: number): Promise<SyncRunner> {
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-bench-"));
  const store = await openSqliteStore({ path: join(directory, "sds.db") });
  let requests = 0;
  const upstream = createClientUpstream({
    baseUrl,
    apiKey: DEFAULT_API_KEY,
    fetch: countingFetch(
      globalThis.fetch,
      () => {
        requests += 1;
      },
      operationMatcher(),
    ),
    maxConcurrency: concurrency + 1,
    retry: 0,
  });
  const index = new SurveyIndex();
  const logger = pino({ level: "silent" });
  const measure = async <T>(work: () => Promise<T>): Promise<Measured & { value: T }> => {
    const before = requests;
    const started = performance.now();
    const value = await work();
    return { ms: performance.now() - started, requests: requests - before, value };
  };
  return {
    async cycle() {
      const {
        ms,
        requests: made,
        value,
      } = await measure(() =>
        runCycle(
          { store, upstream, concurrency, replicaId: "bench", logger, requestCount: () => requests },
          index,
          "manual",
          new AbortController().signal,
        ),
      );
      if (value.status !== "succeeded") throw new Error(`cycle failed: ${value.error ?? "?"}`);
      return { ms, requests: made, result: value };
    },
    async naive() {
      const signal = new AbortController().signal;
      return measure(async () => {
        const pool = new TaskPool(concurrency);
        for await (const { survey } of upstream.liveSurveys(signal)) {
          if (survey) await pool.run(() => upstream.qualifications(survey.SurveyId, signal).then(() => undefined));
        }
        await pool.drain();
      });
    },
    async floor() {
      return measure(async () => {
        const headers = { "EQ-PARTNER-ACCESS-KEY": DEFAULT_API_KEY };
        const get = async (path: string): Promise<unknown> => {
          requests += 1;
          const response = await fetch(`${baseUrl}${path}`, { headers });
          return JSON.parse(await response.text()) as unknown;
        };
        const list = (await get("/surveys")) as { Surveys: { SurveyId: number }[] };
        const pool = new TaskPool(concurrency);
        for (const { SurveyId } of list.Surveys)
          await pool.run(() => get(`/survey-qualifications/${SurveyId}`).then(() => undefined));
        await pool.drain();
      });
    },
    async close() {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
