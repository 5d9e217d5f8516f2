import { z } from "zod";
import { CONTROL_PREFIX, fakeErrorCodes } from "../fake/constants.ts";
import { createRouter } from "@sds/schemas/internal/router";
import { errorResponse, jsonResponse, okBody } from "../internal/envelope.ts";
import { readJsonBody } from "../internal/request-body.ts";
import type { RespondentAnswers } from "./respondent-answers.ts";

/*
 * The marketplace's control routes, under the same `/__sandbox` prefix and in the same style as
 * the fake's (no key, the service's envelope, errors as `fakeErrorCodes`): what a test or the demo
 * in another process tells the marketplace, which `FakeMarketplace.tellAnswers` does in-process.
 */

const routeTable = [
  { id: "tellAnswers", method: "PUT", path: "/respondents/{uid}/answers" },
  { id: "readAnswers", method: "GET", path: "/respondents/{uid}/answers" },
] as const;
type MarketplaceControlRouteId = (typeof routeTable)[number]["id"];
const routes = createRouter<MarketplaceControlRouteId>(routeTable);

/** The most qualifications and option codes one respondent's answers may name: far above any real screener. */
const MAX_ANSWERED_QUALIFICATIONS = 500;
const MAX_CODES_PER_ANSWER = 100;

/** `{"answers": {"42": ["34"], "43": ["2"]}}`: `QualificationId` as a string → option codes (ages as numbers in a string). */
const AnswersBody = z.strictObject({
  answers: z
    .record(
      z.string().regex(/^\d{1,15}$/, "a key must be a QualificationId (digits)"),
      z.array(z.string().max(200)).max(MAX_CODES_PER_ANSWER),
    )
    .refine((answers) => Object.keys(answers).length <= MAX_ANSWERED_QUALIFICATIONS, {
      message: `at most ${MAX_ANSWERED_QUALIFICATIONS} qualifications`,
    }),
});

/** Whether `path` (the request's, without the query) is one of the marketplace's control routes. */
export function isMarketplaceControlPath(path: string): boolean {
  return path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`);
}

/**
 * Creates the handler of the marketplace's `/__sandbox/…` requests over its respondents' true
 * answers: `PUT /__sandbox/respondents/{uid}/answers` replaces them (200 `{ uid, answers }`),
 * `GET` reads them (404 when none were told).
 */
export function createMarketplaceControlHandler(
  truths: RespondentAnswers,
  maxBodyBytes: number,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const path = new URL(request.url).pathname.slice(CONTROL_PREFIX.length);
    const route = routes.match(request.method, path);
    if (route.kind === "method-not-allowed")
      return errorResponse(
        405,
        fakeErrorCodes.methodNotAllowed,
        [`${request.method} is not allowed here; use ${route.allow.join(", ")}.`],
        { allow: route.allow.join(", ") },
      );
    if (route.kind !== "matched")
      return errorResponse(404, fakeErrorCodes.routeNotFound, [
        `No marketplace control route at ${request.method} ${path}.`,
      ]);
    const uid = route.params.uid ?? "";
    if (route.id === "readAnswers") {
      const answers = truths.get(uid);
      return answers === undefined
        ? errorResponse(404, fakeErrorCodes.resourceNotFound, [`no true answers told for respondent "${uid}"`])
        : jsonResponse(200, okBody({ uid, answers }));
    }
    const body = await readJsonBody(request, AnswersBody, maxBodyBytes);
    if (!body.ok) return errorResponse(400, body.errorCode, body.messages);
    truths.tell(uid, body.value.answers);
    return jsonResponse(200, okBody({ uid, answers: body.value.answers }));
  };
}
