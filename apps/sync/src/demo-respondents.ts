import { createClient } from "@sds/client";
import {
  createSyncClient,
  syncOutcomeUrls,
  type ConversionWindowReport,
  type Session,
  type SyncClient,
} from "@sds/sync-client";
import type { Sandbox } from "@sds/testing";
import { answerTo, knownAtStart, tellMarketplace, trueAnswersFor, type Answers } from "./demo-truths.ts";
import type { SyncService } from "./service.ts";

/*
 * The demo's respondent loop: what a supplier's panel does with sds-sync, done for a few invented
 * respondents over the same HTTP API a panel would call, through the client a panel would use
 * (`@sds/sync-client`). Each has true answers (the sandbox's marketplace is told them over its
 * control API) and walks through a session: it answers the questions the session asks, takes the
 * surveys it offers (the marketplace ends each, calls sds-sync's receiver and redirects the
 * respondent to sds-sync's return) and is re-routed after a terminate, until the session is done.
 * The status page then shows entries, completes, conversion and earnings. Development code: it
 * runs only from the demo.
 */

/** What the sessions did, together. */
export interface SessionTotals {
  readonly sessions: number;
  /** Questions the sessions asked (and the respondents answered). */
  readonly questionsAsked: number;
  /** Surveys the sessions offered and the respondents took. */
  readonly attempts: number;
  /** Sessions that ended in a complete. */
  readonly completed: number;
}

/** What the walk did, for the demo's summary and its copy-paste hints. */
export interface LoopWalk {
  /** One line per respondent. */
  readonly lines: readonly string[];
  readonly sessions: SessionTotals;
  /** `loop.totals.lifetime` from `/v1/sync/status` once the marketplace's calls were settled. */
  readonly totals: ConversionWindowReport;
  /** A respondent that took a survey, for the hints: their true answers and language. */
  readonly example: { readonly truth: Answers; readonly languageId: number } | undefined;
  /** The first respondent matched again with `explain` of the first survey they took: why it is out now. */
  readonly recheck: string | undefined;
  /** `loop.warnings` of the status (such as outcomes accepted unsigned): the demo logs errors only, so it says these once. */
  readonly warnings: readonly string[];
}

/** How long to wait, at most, for the matcher to follow the first cycle, the account's first read and the question catalogue. */
/** How long the walk waits for the routing data after the first cycle: generous, since a busy machine reads the groups of 3,000 surveys slowly. */
const READY_TIMEOUT_MS = 90_000;
/** Steps one session may take in the demo: far above its questions and its attempts cap. */
const MAX_STEPS_PER_SESSION = 40;

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

/** Waits until `ready()` holds, checking every 50 ms; false when the signal aborts or the timeout passes. */
async function waitFor(ready: () => boolean, signal: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!ready()) {
    if (signal.aborted || Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** Waits until sessions can route (the matcher follows the first cycle, the account and routing data were read, the catalogue has questions); false on Ctrl-C. */
async function waitUntilRoutable(service: SyncService, firstSequence: number, signal: AbortSignal): Promise<boolean> {
  const loop = service.loop;
  // Surveys whose groups or study type are not known yet stay out of routing until the refresh after the cycle.
  const routable = () => {
    const pending = loop.facts.pending;
    return loop.facts.studyTypesKnown && pending.groups === 0 && pending.studyTypes === 0;
  };
  // Each condition under what its failure says, so that a timeout names what was missing.
  const conditions: Record<string, () => boolean> = {
    "the matcher has not followed the first cycle": () => loop.liveMatcher.sequence >= firstSequence,
    "the account was not read": () => loop.account.verdicts !== undefined,
    "the survey groups and study types were not read": routable,
    "the question catalogue was not read": () => service.sessions.catalogue.report().askable > 0,
  };
  const ready = await waitFor(() => Object.values(conditions).every((met) => met()), signal);
  if (ready || signal.aborted) return ready;
  const unmet = Object.entries(conditions)
    .filter(([, met]) => !met())
    .map(([failure]) => failure);
  throw new Error(`sessions cannot route yet after ${READY_TIMEOUT_MS / 1000} s: ${unmet.join("; ")}`);
}

/**
 * The respondent takes the survey of a step: opens the link (the marketplace ends the entry,
 * calls sds-sync's receiver and answers 302 to the account's redirect URL, sds-sync's return) and
 * follows that redirect (the return records the attempt and answers 303 to the session's page).
 * Undefined when both answered so, else what went wrong.
 */
async function takeSurvey(link: string, signal: AbortSignal): Promise<string | undefined> {
  const visit = await fetch(link, { redirect: "manual", signal });
  await visit.body?.cancel();
  const location = visit.headers.get("location");
  if (visit.status !== 302 || location === null) return `the marketplace answered ${visit.status}`;
  const back = await fetch(location, { redirect: "manual", signal });
  await back.body?.cancel();
  return back.status === 303 ? undefined : `sds-sync's return answered ${back.status}`;
}

/** One respondent's session from start to done: the session as it ended, and what went wrong, if anything. */
async function walkSession(
  sync: SyncClient,
  start: { readonly uid: string; readonly languageId: number; readonly truth: Answers },
  signal: AbortSignal,
): Promise<{ readonly session: Session; readonly problem?: string }> {
  let session = await sync.sessions.create(
    { uid: start.uid, languageId: start.languageId, answers: knownAtStart(start.truth) },
    { signal },
  );
  for (let step = 0; step < MAX_STEPS_PER_SESSION; step++) {
    const next = session.next;
    if (next.kind === "done") return { session };
    if (next.kind === "question") {
      session = await sync.sessions.answer(session.id, answerTo(next, start.truth), { signal });
      continue;
    }
    const problem = await takeSurvey(next.link, signal);
    if (problem !== undefined) return { session, problem };
    session = await sync.sessions.get(session.id, {}, { signal });
    // The return moved the session on; a step that stays would be taken again for ever.
    if (session.next.kind === "survey" && session.next.token === next.token)
      return { session, problem: `the return of ${next.surveyId} did not move the session` };
  }
  return { session, problem: `still open after ${MAX_STEPS_PER_SESSION} steps` };
}

/** One line of the summary for a session: its questions, its attempts and how it ended. */
function describeSession(uid: string, session: Session, problem: string | undefined): string {
  const attempts = session.attempts.map((attempt) => `${attempt.surveyId} ${attempt.returned ?? "pending"}`);
  const ended = session.next.kind === "done" ? session.next.reason : "open";
  return `${uid}: ${session.questionsAsked} ${session.questionsAsked === 1 ? "question" : "questions"}, ${attempts.length === 0 ? "no survey" : attempts.join(", ")} → ${ended}${problem === undefined ? "" : ` (${problem})`}`;
}

/**
 * Walks `count` respondents through sessions: each gets true answers (told to the marketplace
 * over its control API), starts a session with the answers known at start (`POST /v1/sessions`),
 * answers the questions it asks, takes the surveys it offers and is re-routed after a terminate,
 * until the session is done. Undefined when the signal aborted it (Ctrl-C).
 */
export async function walkRespondents(
  service: SyncService,
  sandbox: Sandbox,
  count: number,
  firstSequence: number,
  signal: AbortSignal,
): Promise<LoopWalk | undefined> {
  const marketplace = sandbox.marketplace;
  const controlUrl = sandbox.marketplaceControlUrl;
  if (!marketplace || controlUrl === undefined) throw new Error("the respondent loop needs the sandbox's marketplace");
  if (!(await waitUntilRoutable(service, firstSequence, signal))) return undefined;
  const sync = createSyncClient({ baseUrl: service.url, env: {}, retry: false });
  const live = sandbox.api.listSurveys(sandbox.keys[0]?.supplierId ?? 1001, "live");
  const walked: {
    readonly uid: string;
    readonly truth: Answers;
    readonly languageId: number;
    readonly session: Session;
  }[] = [];
  const lines: string[] = [];
  for (let index = 0; index < count && live.length > 0; index++) {
    if (signal.aborted) return undefined;
    // An invented respondent whom one of the surveys screens in, in its language.
    const target = live[(index * 37) % live.length];
    if (target === undefined) break;
    const uid = `demo-${index + 1}`;
    const truth = trueAnswersFor(sandbox, target.SurveyId, index);
    await tellMarketplace(controlUrl, uid, truth, signal);
    const { session, problem } = await walkSession(sync, { uid, languageId: target.LanguageId, truth }, signal);
    walked.push({ uid, truth, languageId: target.LanguageId, session });
    lines.push(describeSession(uid, session, problem));
  }
  await marketplace.settle();
  if (signal.aborted) return undefined;

  const status = await sync.status({ signal });
  const first = walked.find((each) => each.session.attempts.length > 0);
  return {
    lines,
    sessions: {
      sessions: walked.length,
      questionsAsked: walked.reduce((sum, each) => sum + each.session.questionsAsked, 0),
      attempts: walked.reduce((sum, each) => sum + each.session.attempts.length, 0),
      completed: walked.filter((each) => each.session.next.kind === "done" && each.session.next.reason === "completed")
        .length,
    },
    totals: status.loop.totals.lifetime,
    warnings: status.loop.warnings,
    example: first && { truth: first.truth, languageId: first.languageId },
    recheck: first && (await recheckFirst(sync, first, signal)),
  };
}

/** The first respondent matched again with `explain` of the first survey they took: the reason it is out now. */
async function recheckFirst(
  sync: SyncClient,
  first: { readonly uid: string; readonly truth: Answers; readonly languageId: number; readonly session: Session },
  signal: AbortSignal,
): Promise<string | undefined> {
  const surveyId = first.session.attempts[0]?.surveyId;
  if (surveyId === undefined) return undefined;
  const again = await sync.match(
    { answers: first.truth, languageId: first.languageId, uid: first.uid, limit: 5, explain: surveyId },
    { signal },
  );
  const reason = again.explanation?.reasons[0];
  return reason === undefined
    ? undefined
    : `${first.uid} matched again: survey ${surveyId} is out (${reason.kind}: ${reason.message})`;
}

/** The walk's summary and the steps to walk a respondent through a session by hand, as the demo prints them. */
export function describeWalk(
  walk: LoopWalk,
  service: SyncService,
  sandbox: Sandbox,
  { keepsRunning }: { readonly keepsRunning: boolean },
): string {
  const { totals, sessions } = walk;
  const url = service.url;
  const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
  const example = walk.example;
  const truthBody = JSON.stringify({ answers: example?.truth ?? { "42": ["34"], "43": ["2"] } });
  const startBody = JSON.stringify({ uid: "me-1", languageId: example?.languageId ?? 1 });
  return [
    "",
    `The respondent loop (sessions; the sandbox's marketplace at ${sandbox.marketplaceOrigin ?? "?"} calls sds-sync's receiver at ${service.outcomesUrl}/v1/outcomes/… and sends respondents back to ${service.outcomesUrl}/v1/return/…):`,
    ...walk.lines.map((line) => `  ${line}`),
    ...(walk.recheck === undefined ? [] : [`  ${walk.recheck}`]),
    `  ${sessions.sessions} sessions: ${sessions.questionsAsked} ${sessions.questionsAsked === 1 ? "question" : "questions"} asked, ${sessions.attempts} attempts, ${sessions.completed} completed; earnings ${totals.earnings.toFixed(2)}`,
    `  ${totals.entries} entries: ${totals.completes} completes, ${totals.terminates} terminates, ${totals.overquotas} over quota, ${totals.pending} pending; conversion ${percent(totals.conversion)}, earnings ${totals.earnings.toFixed(2)} (${totals.earningsPerEntry.toFixed(2)} per entry)`,
    ...walk.warnings.map((warning) => `  sds-sync warns: ${warning}`),
    "",
    // With --once the service stops next: no URL of a process that is gone.
    ...(keepsRunning
      ? [
          `Status page: ${url}/`,
          "",
          "Walk a respondent through a session yourself:",
          `  curl -s -X PUT '${sandbox.marketplaceControlUrl ?? "?"}/respondents/me-1/answers' -H 'content-type: application/json' -d '${truthBody}'   # the sandbox's marketplace learns me-1's true answers`,
          `  curl -s -X POST '${url}/v1/sessions' -H 'content-type: application/json' -d '${startBody}'`,
          `  curl -s -X POST '${url}/v1/sessions/ID/answers' -H 'content-type: application/json' -d '{"answers":{"43":["2"]}}'   # while next.kind is "question"`,
          `  curl -si 'LINK'                       # next.kind "survey": the marketplace answers 302 to sds-sync's /v1/return/… and calls the receiver`,
          `  curl -si 'LOCATION'                   # that return: 303 to the session's page`,
          `  curl -s '${url}/v1/sessions/ID'        # the next step: another survey after a terminate, done after a complete`,
          `  curl -s '${url}/v1/sync/status'        # loop.totals: entries, completes, conversion, earnings`,
        ]
      : ["(--once: sds-sync stops now; run the demo without --once to keep it running, with its status page)"]),
    "",
  ].join("\n");
}
