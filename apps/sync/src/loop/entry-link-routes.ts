import { buildEntryLink, isRoutingError, type MatchRequest, type PastEntry } from "@sds/routing";
import { EntryLinkBody, type EntryLink } from "@sds/sync-client";
import { readJsonBody } from "../http/request-body.ts";
import { errorReply, json, type Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import { AccountUnavailableError } from "./loop-errors.ts";
import { microsToAmount, parseCpi } from "./money.ts";
import type { LoopContext } from "./loop-context.ts";

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
    return errorReply(409, "survey_unroutable", `survey ${surveyId} is held out of routing: ${price.problem}`, {
      "retry-after": "10",
    });
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
