import { STATUS_LIMITS, type ConversionWindows, type LoopStatus } from "@sds/sync-client";
import type { LoopContext } from "./loop-context.ts";
import type { ConversionCounts, ConversionSummary, LoopStore, OutcomeKind } from "./store/loop-store.ts";

/** One window's counts as `/v1/sync/status` and the status page read them. */
export interface ConversionWindowReport extends ConversionCounts {
  /** Entries with no outcome yet. */
  readonly pending: number;
  /** completes / entries, 0 with no entries. */
  readonly conversion: number;
  /** earnings / entries, 0 with no entries. */
  readonly earningsPerEntry: number;
}

/** Counts with what is derived from them. */
export function windowReport(counts: ConversionCounts): ConversionWindowReport {
  const decided = counts.completes + counts.terminates + counts.overquotas + counts.securityTerminates;
  return {
    ...counts,
    pending: Math.max(0, counts.entries - decided),
    conversion: counts.entries === 0 ? 0 : counts.completes / counts.entries,
    earningsPerEntry: counts.entries === 0 ? 0 : counts.earnings / counts.entries,
  };
}

/** Each window's counts with what is derived from them. */
function windowReports(counts: {
  readonly lifetime: ConversionCounts;
  readonly last24h: ConversionCounts;
  readonly last7d: ConversionCounts;
}): ConversionWindows {
  return {
    lifetime: windowReport(counts.lifetime),
    last24h: windowReport(counts.last24h),
    last7d: windowReport(counts.last7d),
  };
}

/**
 * The most surveys `/v1/sync/status` lists one by one (those earning most over the last 7 days,
 * then over their lifetime): the page polls it every 5 s per tab, and 5,000 surveys in three
 * windows are megabytes. The totals count every survey.
 */
export const MAX_STATUS_SURVEYS = STATUS_LIMITS.surveys;

/** The store's part of the status, as last read, by store: read again only when its version moved. */
const lastReports = new WeakMap<object, { readonly version: string; readonly report: Promise<ConversionReport> }>();

interface ConversionReport {
  readonly summary: ConversionSummary;
  readonly outcomes: Readonly<Record<OutcomeKind, number>>;
  readonly orphans: number;
}

/**
 * The conversion report, read again only when the store's version moved (an entry, an outcome,
 * a new hour): a page open in many tabs polls every 5 s, and each read of the report holds the
 * event loop on SQLite. Exact: nothing stale is served, only the same figures again.
 */
async function conversionReport(store: LoopStore, now: Date): Promise<ConversionReport> {
  const version = await store.conversionVersion(now);
  const last = lastReports.get(store);
  if (last?.version === version) return last.report;
  const report = Promise.all([
    store.conversionSummary(now, MAX_STATUS_SURVEYS),
    store.outcomeCounts(),
    store.orphanCount(),
  ]).then(([summary, outcomes, orphans]) => ({ summary, outcomes, orphans }));
  lastReports.set(store, { version, report });
  report.catch(() => {
    if (lastReports.get(store)?.report === report) lastReports.delete(store);
  });
  return report;
}

/**
 * The respondent loop in `/v1/sync/status`: the matcher's size and feed position, the account's
 * encryption (whether links are signed and outcomes verified, or why they cannot be), warnings,
 * outcomes by kind, orphans, refused calls, and conversion (entries, outcomes, reversals,
 * earnings net of reversals) in total and per survey, over the lifetime and the last 24 hours
 * and 7 days. Every figure comes from counts kept as entries and outcomes are recorded: O(surveys).
 * The shape is `@sds/sync-client`'s `LoopStatus`, which `/openapi.json` documents.
 */
export async function loopStatus(loop: LoopContext, now: Date = new Date()): Promise<LoopStatus> {
  const { summary, outcomes, orphans } = await conversionReport(loop.store, now);
  const verdicts = loop.account.verdicts;
  const problems = verdicts
    ? [verdicts.incoming, verdicts.outgoing].flatMap((verdict) =>
        verdict.kind === "misconfigured" ? [verdict.problem] : [],
      )
    : [];
  const listed = [...summary.surveys].sort((a, b) => a.surveyId - b.surveyId);
  return {
    matcher: { surveys: loop.liveMatcher.matcher.size, sequence: loop.liveMatcher.sequence },
    account: {
      fetchedAt: loop.account.fetchedAt?.toISOString() ?? null,
      entryLinksSigned: verdicts ? verdicts.incoming.kind === "on" : null,
      outcomesVerified: verdicts ? verdicts.outgoing.kind === "on" : null,
      problem: problems.length > 0 ? problems.join("; ") : null,
    },
    warnings: [...loop.warnings()],
    outcomes,
    orphans: { tokens: orphans },
    refused: loop.refusals.totals(),
    totals: windowReports(summary.totals),
    surveyCount: summary.surveyCount,
    surveys: listed.map((survey) => ({
      surveyId: survey.surveyId,
      ...windowReports(survey),
    })),
    inventoryData: routingDataReport(loop),
  };
}

/** The routing data as `/v1/sync/status` reports it (`loop.inventoryData`). */
export interface RoutingDataReport {
  /** `pending`: grouped surveys held out until their groups are first read. */
  readonly groups: { surveys: number; unavailable: number; pending: number };
  readonly recontact: { studies: number; unavailable: number };
  readonly stats: { surveys: number; unavailable: number };
  /** Surveys held out until the StudyTypes collection says whether their study type is a re-contact one (0 once it did). */
  readonly studyTypesPending: number;
}

/**
 * How the routing data stands on this replica: surveys whose groups were read (and those whose
 * group list could not be: routed as if they had none, unless SYNC_MISSING_GROUPS=exclude),
 * re-contact studies whose list was read (and those out because it could not be), stats read.
 */
export function routingDataReport(loop: Pick<LoopContext, "facts">): RoutingDataReport {
  const pending = loop.facts.pending;
  const counts = {
    groups: { surveys: 0, unavailable: 0, pending: pending.groups },
    recontact: { studies: 0, unavailable: 0 },
    stats: { surveys: 0, unavailable: 0 },
    studyTypesPending: pending.studyTypes,
  };
  for (const fetch of loop.facts.data.fetches) {
    const ok = fetch.status === "ok";
    if (fetch.kind === "groups") counts.groups[ok ? "surveys" : "unavailable"] += 1;
    else if (fetch.kind === "recontact") counts.recontact[ok ? "studies" : "unavailable"] += 1;
    else counts.stats[ok ? "surveys" : "unavailable"] += 1;
  }
  return counts;
}
