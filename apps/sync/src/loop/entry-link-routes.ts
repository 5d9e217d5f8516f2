import { buildEntryLink, isRoutingError, type MatchRequest } from "@sds/routing";
import { EntryLinkBody, type EntryLink } from "@sds/sync-client";
import { readJsonBody } from "../http/request-body.ts";
import { errorReply, json, type Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import { AccountUnavailableError } from "./loop-errors.ts";
import { microsToAmount, parseCpi } from "./money.ts";
import type { LoopContext } from "./loop-context.ts";
import type { EntryAdmission, EntryInput, EntryRecord, RespondentHistory } from "./store/loop-store.ts";

/** Kinds of exclusion that come from the respondent's history or identity, not from the survey's targeting. */
const respondentReasonKinds: ReadonlySet<string> = new Set([
  "already-entered",
  "survey-group",
  "recontact",
  "respondent-cap",
]);

/**
 * `POST /v1/entry-links`: the entry link of a live survey for one respondent (placeholders
 * filled, signed with `IncomingEncryption` when enabled), recorded so conversion has a
 * denominator. 201 for a new entry, 200 for a repeat of the same token (the link as issued, kept
 * with the entry, whatever the survey's SurveyUrl became), 409 when the rules refuse it
 * (`respondent_excluded`, or `survey_unroutable` for a survey held out for everyone) or the token
 * belongs to another entry, 404 when the survey is not live, 410 `survey_closed` for a repeat
 * once the survey closed, 400 for a token of imported history (`history:`), 503 before the
 * account's encryption settings were read.
 */
export async function issueEntryLink(loop: LoopContext, request: RouteRequest): Promise<Reply> {
  const body = await readJsonBody(request.incoming, EntryLinkBody);
  if (!body.ok) return body.reply;
  const { surveyId, token, uid } = body.value;
  const prepared = await prepareEntry(loop, surveyId, token, uid, new Date());
  if (prepared.kind === "refused") return (await retryReply(loop, surveyId, token, uid)) ?? prepared.reply;
  const result = await loop.store.recordEntry(prepared.entry, prepared.admit);
  if (result.kind !== "recorded" && result.kind !== "existing") return entryRefusalReply(result);
  if (result.kind === "recorded")
    for (const attached of result.attached) loop.outcomeNotifier.publish(attached.sequence);
  return json(result.kind === "recorded" ? 201 : 200, issuedLink(result.entry, prepared.link));
}

/** The answer for an entry: the link it was issued with (`built` for an entry recorded before links were kept). */
function issuedLink(entry: EntryRecord, built: string): EntryLink {
  return {
    link: entry.link ?? built,
    surveyId: entry.surveyId,
    token: entry.token,
    uid: entry.uid,
    issuedAt: entry.issuedAt,
  };
}

/**
 * A retry of an issued token that the survey's state would refuse as a new entry: 410
 * `survey_closed` once the survey is no longer live (never another link, never a bare 404), its
 * link as issued while the survey is live but held out (a retry is not a new entry). Undefined
 * when the token is not this respondent's entry into this survey: the refusal stands.
 */
async function retryReply(loop: LoopContext, surveyId: number, token: string, uid: string): Promise<Reply | undefined> {
  const entry = await loop.store.entryOf(token);
  if (entry === undefined || entry.surveyId !== surveyId || entry.uid !== uid) return undefined;
  if ((await loop.liveMatcher.liveSurvey(surveyId)) === undefined)
    return errorReply(
      410,
      "survey_closed",
      `survey ${surveyId} closed after token ${JSON.stringify(token)} was issued for it; its link no longer leads into a live survey`,
    );
  return entry.link === null ? undefined : json(200, issuedLink(entry, entry.link));
}

/** An entry ready to be recorded: its link, the entry, and the admission the store runs under the respondent's lock. */
export type PreparedEntry =
  | {
      readonly kind: "ready";
      readonly link: string;
      readonly entry: EntryInput;
      readonly admit: EntryAdmission<LinkRefusal>;
    }
  | { readonly kind: "refused"; readonly reply: Reply };

/**
 * Everything `POST /v1/entry-links` decides before it records an entry, once for every caller
 * (the route, and a session's survey step): the survey is live and its Cpi a price, the
 * account's encryption is read and usable, the link is built and signed, and the respondent
 * rules that run again inside the recording transaction. Refusals come as the route's answers
 * (404, 409, 422, 503).
 *
 * @throws AccountUnavailableError before the account's settings were read.
 */
export async function prepareEntry(
  loop: LoopContext,
  surveyId: number,
  token: string,
  uid: string,
  now: Date,
): Promise<PreparedEntry> {
  const survey = await loop.liveMatcher.liveSurvey(surveyId);
  if (!survey) return { kind: "refused", reply: errorReply(404, "not_found", `survey ${surveyId} is not live`) };
  const settings = loop.account.current;
  const verdicts = loop.account.verdicts;
  if (!settings || !verdicts) throw new AccountUnavailableError();
  if (verdicts.incoming.kind === "misconfigured") {
    return {
      kind: "refused",
      reply: errorReply(
        503,
        "entry_links_unsignable",
        `entry links cannot be signed: ${verdicts.incoming.problem}; retry later`,
        { "retry-after": "60" },
      ),
    };
  }
  // The matcher holds a survey whose Cpi is not a price out (the admission below says so); parsed again for the amount.
  const price = parseCpi(survey.Cpi, loop.maxCpi);
  if ("problem" in price)
    return {
      kind: "refused",
      reply: errorReply(409, "survey_unroutable", `survey ${surveyId} is held out of routing: ${price.problem}`, {
        "retry-after": "10",
      }),
    };
  let link: string;
  try {
    link = buildEntryLink(
      survey,
      { token, uid },
      { encryption: settings.IncomingEncryption, placeholders: loop.placeholders },
    );
  } catch (error) {
    if (isRoutingError(error)) return { kind: "refused", reply: errorReply(422, "unusable_survey_url", error.message) };
    throw error;
  }
  // The rules of /v1/match, decided again inside the recording transaction, after a retry of the token is
  // recognised (a retry gets its link back) and, with a uid, under a lock on the respondent (every replica): two
  // concurrent links of one respondent into one survey, or into two surveys of a group, yield one.
  const admit = (history: RespondentHistory) => linkRefusal(loop, surveyId, uid, history, now.getTime());
  return {
    kind: "ready",
    link,
    entry: {
      token,
      surveyId,
      uid,
      cpi: microsToAmount(price.micros),
      at: now,
      loiMinutes: loiMinutes(survey.Loi),
      link,
    },
    admit,
  };
}

/** The answer to an entry the store did not record: the token belongs to another entry, or the rules refused it. */
export function entryRefusalReply(
  result:
    | { readonly kind: "conflict"; readonly entry: EntryRecord }
    | { readonly kind: "refused"; readonly refusal: LinkRefusal },
): Reply {
  if (result.kind === "conflict")
    return errorReply(
      409,
      "token_in_use",
      `token ${JSON.stringify(result.entry.token)} already belongs to another entry (survey ${result.entry.surveyId})`,
    );
  return errorReply(
    409,
    result.refusal.code,
    result.refusal.message,
    result.refusal.code === "survey_unroutable" ? { "retry-after": "10" } : {},
  );
}

/** Why no link is issued: the survey is held out for everyone, or the respondent rules exclude this respondent. */
export interface LinkRefusal {
  readonly code: "survey_unroutable" | "respondent_excluded";
  readonly message: string;
}

/**
 * Why the respondent may not enter the survey, or undefined: a survey the service holds out for
 * everyone (its groups or study type not known yet, SYNC_MISSING_GROUPS=exclude) first, else every
 * respondent rule that excludes it, as sentences.
 */
function linkRefusal(
  loop: LoopContext,
  surveyId: number,
  uid: string,
  history: RespondentHistory,
  now: number,
): LinkRefusal | undefined {
  const respondent = { uid, history: history.entries, last24h: history.last24h };
  const request: MatchRequest = { answers: {}, now, ...(uid === "" ? {} : { respondent }) };
  const reasons = loop.liveMatcher.matcher.explain(surveyId, request).reasons;
  const held = reasons.find((reason) => reason.kind === "unusable-survey-url");
  if (held !== undefined)
    return { code: "survey_unroutable", message: `survey ${surveyId} is held out of routing: ${held.reason}` };
  const excluded = reasons.filter((reason) => respondentReasonKinds.has(reason.kind));
  return excluded.length === 0
    ? undefined
    : {
        code: "respondent_excluded",
        message: `the respondent may not enter survey ${surveyId}: ${excluded.map((reason) => `${reason.kind}: ${reason.message}`).join("; ")}`,
      };
}

/** The survey's Loi in minutes, kept with the entry (what a speeding complete is measured against); undefined when it is not a positive number. */
function loiMinutes(loi: string): number | undefined {
  const minutes = Number(loi);
  return Number.isFinite(minutes) && minutes > 0 ? minutes : undefined;
}
