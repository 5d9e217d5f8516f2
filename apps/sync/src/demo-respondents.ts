import { createClient } from "@sds/client";
import { createSyncClient, syncOutcomeUrls, type ConversionWindowReport } from "@sds/sync-client";
import type { Sandbox } from "@sds/testing";
import type { SyncService } from "./service.ts";

/*
 * The demo's respondent loop: what a supplier's panel does with sds-sync, done for a few invented
 * respondents over the same HTTP API a panel would call, through the client a panel would use
 * (`@sds/sync-client`). Each is matched (with a uid), sent in
 * through an entry link, and the sandbox's marketplace ends the session and calls sds-sync's
 * receiver with the outcome; the status page then shows entries, completes, conversion and
 * earnings. Development code: it runs only from the demo.
 */

/** A respondent's answers: `QualificationId` (as a string) → option codes (strings; ages as numbers, such as "34"). */
export type Answers = Record<string, string[]>;

/** What the walk did, for the demo's summary and its copy-paste hints. */
export interface LoopWalk {
  /** One line per respondent. */
  readonly lines: readonly string[];
  /** `loop.totals.lifetime` from `/v1/sync/status` once the marketplace's calls were settled. */
  readonly totals: ConversionWindowReport;
  /** A respondent that matched, for the hints: their answers, language and the survey they entered. */
  readonly example: { readonly answers: Answers; readonly languageId: number; readonly surveyId: number } | undefined;
  /** The first respondent matched again with `explain` of the survey they entered: why it is out now. */
  readonly recheck: string | undefined;
  /** `loop.warnings` of the status (such as outcomes accepted unsigned): the demo logs errors only, so it says these once. */
  readonly warnings: readonly string[];
}

/** How long to wait, at most, for the matcher to follow the first cycle and for the account's first read. */
const READY_TIMEOUT_MS = 15_000;

/**
 * Points the account's four S2S URLs at sds-sync's receiver, as `sds account set-s2s --receiver
 * URL` does (the same builder): the marketplace fills `[#vq_tid#]` with the entry's transaction token.
 */
export async function pointS2sAtReceiver(
  sandbox: Sandbox,
  apiKey: string,
  receiverUrl: string,
  signal: AbortSignal,
): Promise<void> {
  const client = createClient({ baseUrl: sandbox.baseUrl, apiKey });
  const { data: account } = await client.account.get({ signal });
  await client.account.updateS2SRedirectUrls(
    account.Id,
    { Enabled: true, ...syncOutcomeUrls(receiverUrl, "receiver") },
    { signal },
  );
}

/**
 * Points the account's four redirect URLs at sds-sync's return (`GET /v1/return/{outcome}`), as `sds
 * account set-redirects --sync-return-url URL` does, so a respondent ending a survey comes back to
 * their session: the marketplace fills `[#vq_tid#]`
 * with the entry's transaction token.
 */
export async function pointRedirectsAtReturn(
  sandbox: Sandbox,
  apiKey: string,
  returnBaseUrl: string,
  signal: AbortSignal,
): Promise<void> {
  const client = createClient({ baseUrl: sandbox.baseUrl, apiKey });
  const { data: account } = await client.account.get({ signal });
  await client.account.updateRedirectUrls(
    account.Id,
    { Enabled: true, ...syncOutcomeUrls(returnBaseUrl, "return") },
    {
      signal,
    },
  );
}

/** Answers that meet every qualification of `surveyId` (one option code of each; a middle age of an age range), varied by `index`. */
function answersFor(sandbox: Sandbox, surveyId: number, index: number): Answers {
  const answers: Answers = {};
  for (const qualification of sandbox.api.getSurvey(surveyId)?.qualifications ?? []) {
    const codes = qualification.OptionCodes;
    const code =
      qualification.QualificationId === 42
        ? codes[Math.floor(codes.length / 2)]
        : codes[index % Math.max(1, codes.length)];
    if (code !== undefined) answers[String(qualification.QualificationId)] = [code];
  }
  return answers;
}

/** Waits until `ready()` holds, checking every 50 ms; false when the signal aborts or the timeout passes. */
async function waitFor(ready: () => boolean, signal: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!ready()) {
    if (signal.aborted || Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * Walks `count` respondents through the loop: `POST /v1/match` (answers, language, uid) → `POST
 * /v1/entry-links` for the best survey → a visit of the link (the sandbox's marketplace draws the
 * outcome from the survey's hidden conversion, answers 302 and calls the receiver). Undefined when
 * the signal aborted it (Ctrl-C).
 */
export async function walkRespondents(
  service: SyncService,
  sandbox: Sandbox,
  count: number,
  firstSequence: number,
  signal: AbortSignal,
): Promise<LoopWalk | undefined> {
  const marketplace = sandbox.marketplace;
  if (!marketplace) throw new Error("the respondent loop needs the sandbox's marketplace");
  // The matcher follows the store (not the cycle), and entry links need the account's encryption settings.
  const loop = service.loop;
  // Surveys whose groups or study type are not known yet stay out of routing until the refresh after the cycle.
  const routable = () => {
    const pending = loop.facts.pending;
    return loop.facts.studyTypesKnown && pending.groups === 0 && pending.studyTypes === 0;
  };
  if (
    !(await waitFor(
      () => loop.liveMatcher.sequence >= firstSequence && loop.account.verdicts !== undefined && routable(),
      signal,
    ))
  ) {
    if (signal.aborted) return undefined;
    throw new Error(
      "the matcher did not follow the first cycle, the account was not read, or the survey groups and study types were not read, within 15 s",
    );
  }
  const sync = createSyncClient({ baseUrl: service.url, env: {}, retry: false });
  const supplierId = sandbox.keys[0]?.supplierId ?? 1001;
  const live = sandbox.api.listSurveys(supplierId, "live");
  /** Each respondent: a line, and the entry they made (none when no survey matched). */
  const walked: {
    readonly line: string;
    readonly entry?: {
      readonly uid: string;
      readonly token: string;
      readonly surveyId: number;
      readonly answers: Answers;
      readonly languageId: number;
    };
  }[] = [];
  for (let index = 0; index < count && live.length > 0; index++) {
    if (signal.aborted) return undefined;
    // An invented respondent: the answers one of the surveys screens for, in its language.
    const target = live[(index * 37) % live.length];
    if (target === undefined) break;
    const uid = `demo-${index + 1}`;
    const answers = answersFor(sandbox, target.SurveyId, index);
    const matched = await sync.match({ answers, languageId: target.LanguageId, uid, limit: 5 }, { signal });
    const [best] = matched.surveys as { SurveyId: number; Cpi: string }[];
    if (best === undefined) {
      walked.push({ line: `${uid}: no survey matches` });
      continue;
    }
    const token = `demo-token-${index + 1}`;
    const issued = await sync.entryLinks.create({ surveyId: best.SurveyId, token, uid }, { signal });
    // The respondent opens the link: the marketplace answers 302 to the account's redirect URL and calls the receiver.
    const visit = await fetch(issued.link, { redirect: "manual", signal });
    await visit.body?.cancel();
    walked.push({
      line: `${uid}: ${matched.eligible} ${matched.eligible === 1 ? "survey matches" : "surveys match"}, entered ${best.SurveyId} (CPI ${best.Cpi})${visit.status === 302 ? "" : `, the marketplace answered ${visit.status}`}`,
      entry: { uid, token, surveyId: best.SurveyId, answers, languageId: target.LanguageId },
    });
  }
  await marketplace.settle();
  if (signal.aborted) return undefined;

  // What the receiver recorded, by token, and the totals the status page shows.
  const recorded = await sync.outcomes.list({ after: 0, limit: 1000 }, { signal });
  const outcomeOf = new Map(recorded.outcomes.map((outcome) => [outcome.token, outcome.outcome]));
  const lines = walked.map(({ line, entry }) =>
    entry === undefined ? line : `${line} → ${outcomeOf.get(entry.token) ?? "no outcome yet"}`,
  );
  const status = await sync.status({ signal });
  const first = walked.find((each) => each.entry !== undefined)?.entry;
  let recheck: string | undefined;
  if (first) {
    const again = await sync.match(
      { answers: first.answers, languageId: first.languageId, uid: first.uid, limit: 5, explain: first.surveyId },
      { signal },
    );
    const reason = again.explanation?.reasons[0];
    recheck =
      reason === undefined
        ? undefined
        : `${first.uid} matched again: survey ${first.surveyId} is out (${reason.kind}: ${reason.message})`;
  }
  return {
    lines,
    totals: status.loop.totals.lifetime,
    warnings: status.loop.warnings,
    example: first && { answers: first.answers, languageId: first.languageId, surveyId: first.surveyId },
    recheck,
  };
}

/** The walk's summary and the four steps to walk a respondent by hand, as the demo prints them. */
export function describeWalk(
  walk: LoopWalk,
  service: SyncService,
  sandbox: Sandbox,
  { keepsRunning }: { readonly keepsRunning: boolean },
): string {
  const { totals } = walk;
  const url = service.url;
  const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
  const example = walk.example;
  const matchBody = JSON.stringify({
    answers: example?.answers ?? { "42": ["34"], "43": ["2"] },
    languageId: example?.languageId ?? 1,
    uid: "me-1",
    limit: 3,
  });
  const linkBody = JSON.stringify({ surveyId: example?.surveyId ?? 0, token: "me-1-token", uid: "me-1" });
  return [
    "",
    `The respondent loop (the sandbox's marketplace at ${sandbox.marketplaceOrigin ?? "?"} calls sds-sync's receiver at ${service.outcomesUrl}/v1/outcomes/…):`,
    ...walk.lines.map((line) => `  ${line}`),
    ...(walk.recheck === undefined ? [] : [`  ${walk.recheck}`]),
    `  ${totals.entries} entries: ${totals.completes} completes, ${totals.terminates} terminates, ${totals.overquotas} over quota, ${totals.pending} pending; conversion ${percent(totals.conversion)}, earnings ${totals.earnings.toFixed(2)} (${totals.earningsPerEntry.toFixed(2)} per entry)`,
    ...walk.warnings.map((warning) => `  sds-sync warns: ${warning}`),
    "",
    // With --once the service stops next: no URL of a process that is gone.
    ...(keepsRunning
      ? [
          `Status page: ${url}/`,
          "",
          "Walk a respondent yourself:",
          `  curl -s -X POST '${url}/v1/match' -H 'content-type: application/json' -d '${matchBody}'`,
          `  curl -s -X POST '${url}/v1/entry-links' -H 'content-type: application/json' -d '${linkBody}'`,
          `  curl -i 'LINK'                        # the "link" of the answer above: the marketplace answers 302 and calls the receiver`,
          `  curl -s '${url}/v1/sync/status'        # loop.totals: entries, completes, conversion, earnings`,
        ]
      : ["(--once: sds-sync stops now; run the demo without --once to keep it running, with its status page)"]),
    "",
  ].join("\n");
}
