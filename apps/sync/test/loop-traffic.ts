import type { EncryptionSettings } from "@sds/schemas";
import { expect } from "vitest";
import type { ConversionWindowReport } from "../src/loop/loop-status.ts";
import type { OutcomeKind, OutcomeRecord } from "../src/loop/store/loop-store.ts";
import { waitFor } from "./harness.ts";
import type { ServiceHarness } from "./service-harness.ts";

/*
 * The respondent loop's traffic against a running sds-sync, as a supplier and the marketplace
 * make it: entry links issued through `POST /v1/entry-links`, outcomes arriving as S2S calls,
 * each acknowledged (200) or the test fails. And what a consumer reads back.
 */

/** Unsigned S2S calls: the account's outgoing encryption is off, the receiver checks nothing. */
export const unsignedOutcomes: EncryptionSettings = {
  Enabled: false,
  Algorithm: "SHA256",
  QueryParameter: "hash",
  EncryptionKey: "unused-key",
};

/** A JSON POST to the service's API. */
export function postJson(harness: Pick<ServiceHarness, "request">, path: string, body: unknown): Promise<Response> {
  return harness.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Issues an entry link through sds-sync once its matcher holds the survey (it follows the start-up cycle). */
export async function issueEntryLink(harness: ServiceHarness, surveyId: number, token: string): Promise<void> {
  await waitFor(async () => {
    const response = await harness.request("/v1/entry-links", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ surveyId, token, uid: `uid-${token}` }),
    });
    if (response.status === 404) return false;
    expect(response.status, await response.text()).toBe(201);
    return true;
  }, 20_000);
}

/** The marketplace's S2S call for `token`, acknowledged with 200. */
export async function receiveOutcome(harness: ServiceHarness, outcome: OutcomeKind, token: string): Promise<void> {
  const response = await fetch(
    `${harness.service.outcomesUrl}/v1/outcomes/${outcome}?vq_token=${encodeURIComponent(token)}`,
  );
  expect(response.status, await response.clone().text()).toBe(200);
}

/** Every record of the outcome feed (GET /v1/outcomes), oldest first. */
export async function readOutcomeFeed(harness: ServiceHarness): Promise<OutcomeRecord[]> {
  const records: OutcomeRecord[] = [];
  for (let after = 0; ;) {
    const response = await harness.request(`/v1/outcomes?after=${after}&limit=1000`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as { outcomes: OutcomeRecord[]; next: number; hasMore: boolean };
    records.push(...page.outcomes);
    if (!page.hasMore) return records;
    after = page.next;
  }
}

/** The loop's business figures in `GET /v1/sync/status` (not the matcher's or the account's state, which a restart renews). */
export interface LoopFigures {
  readonly outcomes: Record<OutcomeKind, number>;
  readonly orphans: { readonly tokens: number };
  readonly totals: Record<"lifetime" | "last24h" | "last7d", ConversionWindowReport>;
  readonly surveys: unknown[];
}

export async function readLoopFigures(harness: ServiceHarness): Promise<LoopFigures> {
  const response = await harness.request("/v1/sync/status");
  expect(response.status).toBe(200);
  const { loop } = (await response.json()) as { loop: LoopFigures };
  return { outcomes: loop.outcomes, orphans: loop.orphans, totals: loop.totals, surveys: loop.surveys };
}

/**
 * The lifetime counts a feed implies for `entries` (token → Cpi as issued, all of one
 * survey or several): each entry's current outcome is its last record, a reversal is a
 * transition away from complete, earnings are the Cpi of the completes that stand.
 */
export function lifetimeFromFeed(feed: readonly OutcomeRecord[], entries: ReadonlyMap<string, number>) {
  const current = new Map<string, OutcomeKind>();
  let reversals = 0;
  for (const record of feed) {
    if (!entries.has(record.token)) continue;
    current.set(record.token, record.outcome);
    if (record.previousOutcome === "complete") reversals += 1;
  }
  const count = (kind: OutcomeKind) => [...current.values()].filter((outcome) => outcome === kind).length;
  const earnings = [...current].reduce(
    (sum, [token, outcome]) => sum + (outcome === "complete" ? (entries.get(token) ?? 0) : 0),
    0,
  );
  return {
    entries: entries.size,
    completes: count("complete"),
    terminates: count("terminate"),
    overquotas: count("overquota"),
    securityTerminates: count("security"),
    reversals,
    earnings,
  };
}
