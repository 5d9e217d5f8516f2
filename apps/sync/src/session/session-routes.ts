import { z } from "zod";
import { guarded, pathParameter, type RouteDoc } from "../http/route-doc.ts";
import { defineRoutes, type RouteModule } from "../http/route-module.ts";
import { readJsonBody } from "../http/request-body.ts";
import { json, type Reply } from "../http/respond.ts";
import { outcomeKinds } from "../loop/store/loop-store.ts";
import { readRisk, riskScore } from "../loop/store/respondent-risk-records.ts";
import { eraseProfile, readProfile } from "./profile-records.ts";
import { receiveReturn, type ReturnContext } from "./session-return.ts";
import { type ErrorBody, Profile, ProfileErased, Session, SessionAnswersBody, SessionBody } from "@sds/sync-client";
import type { SessionOutcome, Sessions } from "./sessions.ts";

/** What the session's routes work with. */
export interface SessionRoomContext extends ReturnContext {
  readonly sessions: Sessions;
}

const sessionId = pathParameter("id", "The session's id.", z.string());
const uidParameter = pathParameter("uid", "The respondent's id in your system.", z.string());
const explainParameter = {
  name: "explain",
  in: "query" as const,
  description: "1: add the questions considered with their expected gain and the top surveys with their estimates.",
  schema: z.enum(["0", "1"]),
};

const returnDoc = {
  summary:
    "Where the account's RedirectUrls send the respondent after a survey: records the return, answers 303 onwards",
  parameters: [
    pathParameter("outcome", "How the survey ended.", z.enum(outcomeKinds)),
    {
      name: "vq_token",
      in: "query",
      required: true,
      description: "The transaction token (the name is SYNC_OUTCOMES_TOKEN_PARAM's).",
      schema: z.string().min(1),
    },
  ],
  success: {
    "303": {
      description:
        "To the session's returnUrl, SYNC_SESSION_RETURN_URL or the respondent page /s/{id}, with session=<id>.",
    },
    "200": { contentType: "text/html" },
  },
  errors: ["400", "403", "404", "405", "500", "503"],
} as const satisfies RouteDoc;

/**
 * The API's answer: the session, or its error; a respondent the quality gate refused in this
 * request is a 403 `respondent_refused` naming the rule (`error.gate`); the session, done
 * (`excluded`, with `gate`), can still be read.
 */
function answer(outcome: SessionOutcome, status = 200): Reply {
  if (outcome.kind === "reply") return outcome.reply;
  if (outcome.refused !== undefined)
    return json(403, {
      error: {
        code: "respondent_refused",
        message: `the quality gate refused the respondent (${outcome.refused}); session ${outcome.session.id} is done`,
        gate: outcome.refused,
      },
    } satisfies ErrorBody);
  return json(status, outcome.session);
}

/**
 * The respondent's session: `POST /v1/sessions`, `GET /v1/sessions/{id}`, its answers and its
 * end (private API), the return from a survey (`GET /v1/return/{outcome}`, with the S2S
 * receiver: the respondent's browser reaches it), and respondents' profiles. The respondent's
 * page (`/s/*`) is its own room: src/page.
 */
export function sessionRoutes(context: SessionRoomContext): RouteModule {
  const { sessions } = context;
  return defineRoutes({
    schemas: { Session, Profile, ProfileErased },
    bodies: { SessionBody, SessionAnswersBody },
    routes: {
      startSession: {
        method: "POST",
        path: "/v1/sessions",
        access: "router",
        handler: async (request) => {
          const body = await readJsonBody(request.incoming, SessionBody);
          return body.ok ? answer(await sessions.start(body.value), 201) : body.reply;
        },
        doc: {
          summary:
            "Begin a respondent's session: 201 with its first step (a question, a survey or done); 403 respondent_refused (error.gate) when the quality gate refuses the respondent. Without ip in the body, the address-based rules (velocity-ip, geo) do not apply: the caller is your server, not the respondent",
          requestBody: "SessionBody",
          success: { "201": "Session" },
          errors: ["400", ...guarded, "413", "415", "503"],
        },
      },
      getSession: {
        method: "GET",
        path: "/v1/sessions/{id}",
        access: "router",
        handler: async (request) =>
          answer(await sessions.get(request.params.id ?? "", request.url.searchParams.get("explain") === "1")),
        doc: {
          summary: "A session and its next step (a survey step stays while its return is awaited)",
          parameters: [sessionId, explainParameter],
          success: { "200": "Session" },
          errors: [...guarded, "404", "503"],
        },
      },
      answerSession: {
        method: "POST",
        path: "/v1/sessions/{id}/answers",
        access: "router",
        handler: async (request) => {
          const body = await readJsonBody(request.incoming, SessionAnswersBody);
          return body.ok
            ? answer(
                await sessions.answer(request.params.id ?? "", body.value.answers, {
                  fingerprint: body.value.fingerprint,
                }),
              )
            : body.reply;
        },
        doc: {
          summary:
            "The respondent's answers (kept in their profile), with the page's device fingerprint: the session with a new next step; 403 respondent_refused when the quality gate refuses the respondent",
          parameters: [sessionId],
          requestBody: "SessionAnswersBody",
          success: { "200": "Session" },
          errors: ["400", ...guarded, "404", "413", "415", "503"],
        },
      },
      endSession: {
        method: "POST",
        path: "/v1/sessions/{id}/end",
        access: "router",
        handler: async (request) => answer(await sessions.end(request.params.id ?? "")),
        doc: {
          summary: "End a session (done, ended)",
          parameters: [sessionId],
          success: { "200": "Session" },
          errors: [...guarded, "404", "503"],
        },
      },
      receiveReturn: {
        method: "GET",
        path: "/v1/return/{outcome}",
        access: "signature",
        listener: "outcomes",
        handler: (request) => receiveReturn(context, request),
        doc: returnDoc,
      },
      readProfile: {
        method: "GET",
        path: "/v1/respondents/{uid}/profile",
        access: "operator",
        handler: async (request) => {
          const uid = request.params.uid ?? "";
          const [answers, risk] = await Promise.all([
            context.loop.store.read(readProfile(uid)),
            context.loop.store.read(readRisk(uid)),
          ]);
          return json(200, {
            uid,
            answers: answers.map((item) => ({ ...item, answers: [...item.answers] })),
            risk: { ...risk, score: riskScore(risk) },
          } satisfies Profile);
        },
        doc: {
          summary:
            "A respondent's stored answers, with when and how each came (session, api, import), and their risk (the quality gate's score)",
          parameters: [uidParameter],
          success: { "200": "Profile" },
          errors: [...guarded, "503"],
        },
      },
      eraseProfile: {
        method: "DELETE",
        path: "/v1/respondents/{uid}/profile",
        access: "operator",
        handler: async (request) => {
          const uid = request.params.uid ?? "";
          const erased = await context.loop.store.write("erasing a profile", eraseProfile(uid));
          return json(200, { uid, erased });
        },
        doc: {
          summary:
            "Erase a respondent's stored answers (the right to erasure); their entries stay, as the buyer's exclusion record",
          parameters: [uidParameter],
          success: { "200": "ProfileErased" },
          errors: [...guarded, "503"],
        },
      },
    },
  });
}
