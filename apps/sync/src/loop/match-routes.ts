import { buildEntryLink, isRoutingError, MAX_MATCH_LIMIT, type MatchRequest, type PastEntry } from "@sds/routing";
import { z } from "zod";
import { readJsonBody } from "../http/request-body.ts";
import { errorReply, json, type Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import { AccountUnavailableError } from "./loop-errors.ts";
import type { LoopContext } from "./loop-context.ts";
import type { EntryLink } from "./loop-schemas.ts";
import type { EntryAdmission, EntryInput, EntryRecord } from "./store/loop-store.ts";
import { loopText } from "./loop-text.ts";

/** Body of `POST /v1/match`. */
export const MatchBody = z
  .strictObject({
    /** `QualificationId` (as a string) → the option codes the respondent gave. Without it, with a `uid`: the respondent's stored profile. */
    answers: z
      .record(z.string().regex(/^\d{1,12}$/, "must be a QualificationId"), z.array(z.string().max(200)).max(1000))
      .optional(),
    languageId: z.number().int().optional(),
    device: z.enum(["desktop", "mobile", "tablet"]).optional(),
    limit: z.number().int().min(1).max(MAX_MATCH_LIMIT).optional(),
    /** A SurveyId: say why that survey is in or out for this respondent. */
    explain: z.number().int().positive().optional(),
    /** The respondent's id in the supplier's system: their history (entries issued and imported) keeps out surveys the buyer would reject. */
    uid: loopText().pipe(z.string().min(1)).optional(),
    /** `earnings` (`Cpi × Ir / 100`, the default) or `yield` (`Cpi ×` the conversion learned from outcomes). */
    order: z.enum(["earnings", "yield"]).optional(),
    /** Under `yield`: false ranks by the posterior mean instead of a draw (no exploration). @default true */
    explore: z.boolean().optional(),
  })
  .refine((body) => body.answers !== undefined || body.uid !== undefined, {
    message: "required without a uid (with a uid, the stored profile is used)",
    path: ["answers"],
  });
export type MatchBody = z.infer<typeof MatchBody>;

/** Kinds of exclusion that come from the respondent's history or identity, not from the survey's targeting. */
const respondentReasonKinds: ReadonlySet<string> = new Set([
  "already-entered",
  "survey-group",
  "recontact",
  "respondent-cap",
]);

/** The most recent entries of a respondent the rules read per request (one indexed read). */
export const MATCH_HISTORY_LIMIT = 200;

/**
 * What `/v1/match` reads and keeps of respondents' profiles (the session's room provides it):
 * a match with a uid and no `answers` uses the stored answers; answers passed with a uid are kept
 * (source `api`).
 */
export interface ProfileAccess {
  /** The respondent's answers that still stand (`SYNC_PROFILE_TTL_DAYS`). */
  answers(uid: string): Promise<Record<string, string[]>>;
  /** Keeps answers passed with a uid; writes only those that changed. */
  keep(
    uid: string,
    languageId: number | undefined,
    answers: Readonly<Record<string, readonly string[]>>,
  ): Promise<void>;
}

/** The matcher's request for a validated body. */
export function toMatchRequest(body: MatchBody, history?: readonly PastEntry[]): MatchRequest {
  const { answers = {}, languageId, device, limit, uid, order, explore } = body;
  return {
    answers,
    ...(languageId === undefined ? {} : { languageId }),
    ...(device === undefined ? {} : { device }),
    ...(limit === undefined ? {} : { limit }),
    ...(uid === undefined ? {} : { respondent: { uid, history: history ?? [] } }),
    ...(order === undefined ? {} : { order }),
    ...(explore === undefined ? {} : { explore }),
  };
}

/**
 * `POST /v1/match`: the live surveys the respondent qualifies for, best first (`Cpi × Ir / 100`
 * descending, then `SurveyId`, or by learned yield), from the in-memory matcher. With a `uid`,
 * the respondent's history (one indexed read) keeps out surveys they entered, other surveys of
 * those surveys' groups, re-contact studies not meant for them and everything past a daily cap. `eligible` counts them all,
 * `sequence` is the change-feed position the matcher reflects, `explanation` answers `explain`.
 */
export async function match(loop: LoopContext, request: RouteRequest, profiles?: ProfileAccess): Promise<Reply> {
  const body = await readJsonBody(request.incoming, MatchBody);
  if (!body.ok) return body.reply;
  const { explain, uid } = body.value;
  let { answers } = body.value;
  if (uid !== undefined && profiles !== undefined) {
    if (answers === undefined) answers = await profiles.answers(uid);
    else await profiles.keep(uid, body.value.languageId, answers);
  }
  const history = uid === undefined ? undefined : await loop.outcomes.respondentHistory(uid, MATCH_HISTORY_LIMIT);
  const respondent = toMatchRequest({ ...body.value, answers: answers ?? {} }, history);
  const live = loop.liveMatcher;
  const { matcher } = live;
  const result = matcher.match(respondent);
  const explanation = explain === undefined ? undefined : matcher.explain(explain, respondent);
  // Read before awaiting the records: a refresh may move the matcher on meanwhile.
  const { sequence } = live;
  // The records as stored, not parsed and serialised again (LiveMatcher.surveyRecords: cached, else from the store).
  const surveys = (await live.surveyRecords(result.surveyIds)).join(",");
  const rest = JSON.stringify({
    eligible: result.eligible,
    sequence,
    ...(explanation === undefined ? {} : { explanation }),
  });
  return {
    status: 200,
    body: `{"surveys":[${surveys}],${rest.slice(1)}`,
    contentType: "application/json; charset=utf-8",
  };
}

/** Body of `POST /v1/entry-links`. */
export const EntryLinkBody = z.strictObject({
  surveyId: z.number().int().positive(),
  /** The transaction token of this entry (echoed by the marketplace in the outcome). */
  token: loopText().pipe(z.string().min(1)),
  /** The respondent's id in the supplier's system. */
  uid: loopText().default(""),
});

/**
 * `POST /v1/entry-links`: the entry link of a live survey for one respondent (placeholders
 * filled, signed with `IncomingEncryption` when enabled), recorded so conversion has a
 * denominator. 201 for a new entry, 200 for a repeat of the same token (same link), 409 when the
 * rules refuse it (`respondent_excluded`, or `survey_unroutable` for a survey held out for
 * everyone) or the token belongs to another entry, 404 when the survey is not live, 503 before the account's
 * encryption settings were read.
 */
export async function issueEntryLink(loop: LoopContext, request: RouteRequest): Promise<Reply> {
  const body = await readJsonBody(request.incoming, EntryLinkBody);
  if (!body.ok) return body.reply;
  const { surveyId, token, uid } = body.value;
  const prepared = await prepareEntry(loop, surveyId, token, uid, new Date());
  if (prepared.kind === "refused") return prepared.reply;
  const result = await loop.outcomes.recordEntry(prepared.entry, prepared.admit);
  if (result.kind !== "recorded" && result.kind !== "existing") return entryRefusalReply(result);
  if (result.kind === "recorded")
    for (const attached of result.attached) loop.outcomeNotifier.publish(attached.sequence);
  return json(result.kind === "recorded" ? 201 : 200, {
    link: prepared.link,
    surveyId,
    token,
    uid,
    issuedAt: result.entry.issuedAt,
  } satisfies EntryLink);
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
 * (the route, and a session's survey step): the survey is live, the account's encryption is
 * read and usable, the link is built and signed, and the respondent rules that run again inside
 * the recording transaction. Refusals come as the route's answers (404, 422, 503).
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
  const admit = (history: readonly PastEntry[]) => linkRefusal(loop, surveyId, uid, history, now.getTime());
  return { kind: "ready", link, entry: { token, surveyId, uid, cpi: Number(survey.Cpi) || 0, at: now }, admit };
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
  history: readonly PastEntry[],
  now: number,
): LinkRefusal | undefined {
  const request: MatchRequest = { answers: {}, now, ...(uid === "" ? {} : { respondent: { uid, history } }) };
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
