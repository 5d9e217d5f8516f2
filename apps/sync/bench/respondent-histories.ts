import { createSeededRandom } from "@sds/testing";

/**
 * The respondents of respondent-routing.bench.ts and their past entries, generated
 * deterministically, and their import through `POST /v1/respondents/history` (the route a
 * supplier would use, so the rows are exactly what the service writes).
 */

/** One entry of `POST /v1/respondents/history`. */
export interface HistoryEntry {
  readonly uid: string;
  readonly surveyId: number;
  readonly enteredAt: string;
  readonly outcome?: "complete" | "terminate" | "overquota" | "security";
}

/** Where the history of the respondents comes from. */
export interface HistoryPlan {
  readonly uids: readonly string[];
  /** Surveys entered, mostly the live ones (so the rules exclude some of them). */
  readonly liveSurveyIds: readonly number[];
  /** Share of entries into surveys that are no longer live. @default 0.2 */
  readonly closedShare?: number;
  /** Entries are spread over this many days before `now`. @default 60 */
  readonly days?: number;
  readonly now: number;
}

/**
 * The respondent pool: the PIDs of the re-contact lists first (so some re-contact studies admit
 * someone), then `r0000001`, `r0000002`, … up to `count` in all.
 */
export function respondentPool(count: number, recontactPids: readonly string[]): string[] {
  const pool = [...new Set(recontactPids)].slice(0, count);
  for (let index = 1; pool.length < count; index++) pool.push(`r${String(index).padStart(7, "0")}`);
  return pool;
}

/** Past entries per respondent: one respondent in a hundred is heavy (100 to 200), the rest 0 to 20. */
export function entriesOf(index: number, random: () => number): number {
  return index % 100 === 0 ? 100 + Math.floor(random() * 101) : Math.floor(random() * 21);
}

const outcomes = [
  undefined,
  undefined,
  "terminate",
  "terminate",
  "terminate",
  "overquota",
  "complete",
  "security",
] as const;

/** Every past entry of every respondent, in order of respondent. */
export function* respondentHistories(plan: HistoryPlan, seed = 99): Generator<HistoryEntry> {
  const random = createSeededRandom(seed).next;
  const days = plan.days ?? 60;
  const closedShare = plan.closedShare ?? 0.2;
  for (const [index, uid] of plan.uids.entries()) {
    const count = entriesOf(index, random);
    for (let entry = 0; entry < count; entry++) {
      const surveyId =
        random() < closedShare
          ? 100_000 + Math.floor(random() * 100_000)
          : (plan.liveSurveyIds[Math.floor(random() * plan.liveSurveyIds.length)] ?? 1);
      // Whole seconds: the body limit is 64 KiB and each byte of a batch counts.
      const enteredAt = new Date(Math.floor((plan.now - 3_600_000 - random() * days * 86_400_000) / 1000) * 1000)
        .toISOString()
        .replace(".000Z", "Z");
      const outcome = outcomes[Math.floor(random() * outcomes.length)];
      yield outcome === undefined ? { uid, surveyId, enteredAt } : { uid, surveyId, enteredAt, outcome };
    }
  }
}

/** What an import did. */
export interface ImportReport {
  readonly entries: number;
  readonly batches: number;
  readonly seconds: number;
  readonly entriesPerSecond: number;
}

/**
 * Imports entries in batches over HTTP, `concurrency` batches in flight. `batchSize` is 500, not
 * the route's 1000: 1000 entries do not fit in the loop routes' 64 KiB body limit.
 */
export async function importHistories(options: {
  url: string;
  token: string;
  entries: Iterable<HistoryEntry>;
  batchSize?: number;
  concurrency?: number;
}): Promise<ImportReport> {
  const batchSize = options.batchSize ?? 500;
  const iterator = options.entries[Symbol.iterator]();
  let entries = 0;
  let batches = 0;
  const nextBatch = (): HistoryEntry[] => {
    const batch: HistoryEntry[] = [];
    for (let result = iterator.next(); ; result = iterator.next()) {
      if (result.done === true) break;
      batch.push(result.value);
      if (batch.length === batchSize) break;
    }
    return batch;
  };
  const started = performance.now();
  const worker = async () => {
    for (let batch = nextBatch(); batch.length > 0; batch = nextBatch()) {
      const response = await fetch(`${options.url}/v1/respondents/history`, {
        method: "POST",
        headers: { authorization: `Bearer ${options.token}`, "content-type": "application/json" },
        body: JSON.stringify({ entries: batch }),
      });
      if (!response.ok)
        throw new Error(
          `POST /v1/respondents/history answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
        );
      await response.arrayBuffer();
      entries += batch.length;
      batches += 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { entries, batches, seconds, entriesPerSecond: entries / seconds };
}
