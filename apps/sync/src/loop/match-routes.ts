import { buildEntryLink, isRoutingError, MAX_MATCH_LIMIT, type MatchRequest, type PastEntry } from "@sds/routing";
import { z } from "zod";
import { readJsonBody } from "../http/request-body.ts";
import { errorReply, json, type Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import { AccountUnavailableError } from "./loop-errors.ts";
import { microsToAmount, parseCpi } from "./money.ts";
import type { LoopContext } from "./loop-context.ts";
import type { EntryLink } from "./loop-schemas.ts";
import { loopText } from "./loop-text.ts";

/** Body of `POST /v1/match`. */
export const MatchBody = z.strictObject({
  /** `QualificationId` (as a string) → the option codes the respondent gave. */
  answers: z.record(
    z.string().regex(/^\d{1,12}$/, "must be a QualificationId"),
    z.array(z.string().max(200)).max(1000),
  ),
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

/** The matcher's request for a validated body. */
export function toMatchRequest(body: MatchBody, history?: readonly PastEntry[]): MatchRequest {
  const { answers, languageId, device, limit, uid, order, explore } = body;
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
export async function match(loop: LoopContext, request: RouteRequest): Promise<Reply> {
  const body = await readJsonBody(request.incoming, MatchBody);
  if (!body.ok) return body.reply;
  const { explain, uid } = body.value;
  const history = uid === undefined ? undefined : await loop.store.respondentHistory(uid, MATCH_HISTORY_LIMIT);
  const respondent = toMatchRequest(body.value, history);
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
  const survey = await loop.liveMatcher.liveSurvey(surveyId);
  if (!survey) return errorReply(404, "not_found", `survey ${surveyId} is not live`);
  const settings = loop.account.current;
  const verdicts = loop.account.verdicts;
  if (!settings || !verdicts) throw new AccountUnavailableError();
  if (verdicts.incoming.kind === "misconfigured") {
    return errorReply(
      503,
      "entry_links_unsignable",
      `entry links cannot be signed: ${verdicts.incoming.problem}; retry later`,
      { "retry-after": "60" },
    );
  }
  let link: string;
  try {
    link = buildEntryLink(
      survey,
      { token, uid },
      { encryption: settings.IncomingEncryption, placeholders: loop.placeholders },
    );
  } catch (error) {
    if (isRoutingError(error)) return errorReply(422, "unusable_survey_url", error.message);
    throw error;
  }
  const now = new Date();
  // The rules of /v1/match, decided again here inside the recording transaction, after a retry of the token is
  // recognised (a retry gets its link back) and, with a uid, under a lock on the respondent (every replica): two
  // concurrent links of one respondent into one survey, or into two surveys of a group, yield one.
  const refusal = (history: readonly PastEntry[]) => linkRefusal(loop, surveyId, uid, history, now.getTime());
  // The matcher holds a survey whose Cpi is not a price out (refusal above); parsed again for the amount itself.
  const price = parseCpi(survey.Cpi);
  if ("problem" in price)
    return errorReply(409, "survey_unroutable", `survey ${surveyId} is held out of routing: ${price.problem}`);
  const result = await loop.store.recordEntry(
    { token, surveyId, uid, cpi: microsToAmount(price.micros), at: now },
    refusal,
  );
  if (result.kind === "conflict")
    return errorReply(
      409,
      "token_in_use",
      `token ${JSON.stringify(token)} already belongs to another entry (survey ${result.entry.surveyId})`,
    );
  if (result.kind === "refused")
    return errorReply(
      409,
      result.refusal.code,
      result.refusal.message,
      result.refusal.code === "survey_unroutable" ? { "retry-after": "10" } : {},
    );
  if (result.kind === "recorded")
    for (const attached of result.attached) loop.outcomeNotifier.publish(attached.sequence);
  return json(result.kind === "recorded" ? 201 : 200, {
    link,
    surveyId,
    token,
    uid,
    issuedAt: result.entry.issuedAt,
  } satisfies EntryLink);
}

/** Why no link is issued: the survey is held out for everyone, or the respondent rules exclude this respondent. */
interface LinkRefusal {
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
