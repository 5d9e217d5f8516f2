import type { Explanation, MatchRequest } from "@sds/routing";
import { MatchBody } from "@sds/sync-client";
import type { z } from "zod";
import { readJsonBody } from "../http/request-body.ts";
import type { Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import type { LoopContext } from "./loop-context.ts";
import type { RespondentHistory } from "./store/loop-store.ts";

/** A validated body of `POST /v1/match` (its schema is `@sds/sync-client`'s). */
type MatchBodyValue = z.output<typeof MatchBody>;

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

/** The matcher's request for a validated body, at `now` (the time the history was read for). */
export function toMatchRequest(body: MatchBodyValue, now: Date, history?: RespondentHistory): MatchRequest {
  const { answers = {}, languageId, device, limit, uid, order, explore } = body;
  return {
    answers,
    now: now.getTime(),
    ...(languageId === undefined ? {} : { languageId }),
    ...(device === undefined ? {} : { device }),
    ...(limit === undefined ? {} : { limit }),
    ...(uid === undefined
      ? {}
      : { respondent: { uid, history: history?.entries ?? [], ...(history ? { last24h: history.last24h } : {}) } }),
    ...(order === undefined ? {} : { order }),
    ...(explore === undefined ? {} : { explore }),
  };
}

/**
 * `POST /v1/match`: the live surveys the respondent qualifies for, best first (`Cpi × Ir / 100`
 * descending, then `SurveyId`, or by learned yield), from the in-memory matcher. With a `uid`,
 * the respondent's whole history (one indexed read, condensed per survey and outcome) keeps out surveys they entered, other surveys of
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
  const now = new Date();
  const history = uid === undefined ? undefined : await loop.store.respondentHistory(uid, now);
  const respondent = toMatchRequest({ ...body.value, answers: answers ?? {} }, now, history);
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
    ...(explanation === undefined ? {} : { explanation: explanationAsJson(explanation) }),
  });
  return {
    status: 200,
    body: `{"surveys":[${surveys}],${rest.slice(1)}`,
    contentType: "application/json; charset=utf-8",
  };
}

/**
 * An explanation as the API answers it: its times (`enteredAt`, `heldUntil`; epoch milliseconds
 * inside `@sds/routing`) in ISO 8601, like every other time of the API.
 */
function explanationAsJson(explanation: Explanation): Record<string, unknown> {
  const iso = (epochMs: number) => new Date(epochMs).toISOString();
  return {
    ...explanation,
    reasons: explanation.reasons.map((reason) =>
      "enteredAt" in reason
        ? { ...reason, enteredAt: iso(reason.enteredAt) }
        : reason.kind === "yield-cutoff"
          ? { ...reason, heldUntil: iso(reason.heldUntil) }
          : reason,
    ),
  };
}
