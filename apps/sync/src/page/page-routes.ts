import { z } from "zod";
import type { SessionInventory } from "@sds/routing";
import { pathParameter, type Parameter } from "../http/route-doc.ts";
import { defineRoutes, type RouteModule, type RouteRequest } from "../http/route-module.ts";
import type { Reply } from "../http/respond.ts";
import type { StoredLanguages } from "../inventory-store/stored-languages.ts";
import type { LoopContext } from "../loop/loop-context.ts";
import type { Sessions } from "../session/sessions.ts";
import { PageLanguages } from "./page-languages.ts";
import type { PageConfig } from "./page-settings.ts";
import { FINGERPRINT_SCRIPT_PATH, pageOff, type RespondentPageContext } from "./page-replies.ts";
import { goToSurvey, servePageScript, showStep, takeAnswers } from "./respondent-page.ts";
import { startFromLink } from "./start-from-link.ts";

/** The respondent page of one replica: its routes, and what `/readyz` should say of it. */
export interface RespondentPage {
  readonly routes: RouteModule;
  /** `/readyz` warnings: the page is off while SYNC_SESSION_SECRET is unset. */
  warnings(): readonly string[];
}

const sessionId = pathParameter(
  "id",
  "The session's id (the only key to it: keep it out of logs and referrers).",
  z.string(),
);

const startParameters: readonly Parameter[] = [
  { name: "uid", in: "query", required: true, description: "The respondent's id in your system.", schema: z.string() },
  { name: "languageId", in: "query", required: true, description: "The session's LanguageId.", schema: z.string() },
  { name: "device", in: "query", description: "desktop, mobile or tablet.", schema: z.string() },
  {
    name: "returnUrl",
    in: "query",
    description: "Your page the end of the session links to (absolute http(s)).",
    schema: z.string(),
  },
  { name: "ts", in: "query", required: true, description: "When the link was made, Unix seconds.", schema: z.string() },
  {
    name: "sig",
    in: "query",
    required: true,
    description:
      "HMAC-SHA256 (hex) with SYNC_SESSION_SECRET over the raw query before &sig= (always last): signStartLink of @sds/routing, sds link start.",
    schema: z.string(),
  },
];

/**
 * The respondent's page, `/s/*`, on the outcomes listener (the respondent's browser reaches it
 * where it reaches the return): the start link, each step of the session, the answers' form,
 * the survey's button and the page's script. While `SYNC_SESSION_SECRET` is unset every route
 * answers a 404 page saying the page is off.
 */
export function respondentPageRoutes(options: {
  readonly config: PageConfig & { readonly sessionTtlSeconds?: number | undefined };
  readonly sessions: Sessions;
  readonly loop: LoopContext;
  readonly inventory: SessionInventory;
  /** The stored Languages collection (the page's locale). */
  readonly languages: StoredLanguages;
  readonly clock?: () => Date;
}): RespondentPage {
  const { config } = options;
  const secret = config.sessionSecret;
  const context: RespondentPageContext = {
    sessions: options.sessions,
    loop: options.loop,
    inventory: options.inventory,
    languages: new PageLanguages(options.languages),
    secret,
    startLinkSeconds: config.startLinkSeconds ?? 600,
    sessionTtlSeconds: config.sessionTtlSeconds ?? 3600,
    embedOrigins: config.embedOrigins ?? [],
    clock: options.clock ?? (() => new Date()),
  };
  const whenOn =
    (handler: (request: RouteRequest, secret: string) => Promise<Reply> | Reply) =>
    async (request: RouteRequest): Promise<Reply> =>
      secret === undefined ? pageOff(context) : handler(request, secret);
  // Every refusal is a page for the respondent (text/html), never the API's JSON error body.
  const html = { contentType: "text/html" } as const;
  const refusals = { "403": html, "404": html, "503": html } as const;
  return {
    warnings: () =>
      secret === undefined
        ? ["the respondent page (/s/*) is off: SYNC_SESSION_SECRET is not set, so start links cannot be verified"]
        : [],
    routes: defineRoutes({
      schemas: {},
      routes: {
        startFromLink: {
          method: "GET",
          path: "/s/start",
          access: "signature",
          listener: "outcomes",
          handler: whenOn((request, key) => startFromLink(context, request, key)),
          doc: {
            summary:
              "A signed start link: starts a session and answers 303 to /s/{id} (the same session while it is open); forged, expired or used after its session ended: a 403 page",
            parameters: startParameters,
            success: {
              "303": { description: "To /s/{id}." },
              "200": { description: "HEAD only: the link is valid (a HEAD starts no session)." },
              "400": html,
              ...refusals,
            },
            head: "Checks a start link without starting a session: 200 when valid, else the refusal's status",
            errors: ["405", "500"],
          },
        },
        pageScript: {
          method: "GET",
          path: FINGERPRINT_SCRIPT_PATH,
          access: "signature",
          listener: "outcomes",
          handler: whenOn(() => servePageScript(context)),
          doc: {
            summary: "The page's script: FingerprintJS (MIT) and the lines that put the device hash into the forms",
            success: { "200": { contentType: "text/javascript" }, "404": html },
            errors: ["405"],
          },
        },
        respondentPage: {
          method: "GET",
          path: "/s/{id}",
          access: "signature",
          listener: "outcomes",
          handler: whenOn((request) => showStep(context, request)),
          doc: {
            summary:
              "The respondent's page: the session's next step (a question's form, a survey's button, or the end with a link to the returnUrl)",
            parameters: [sessionId],
            success: { "200": html, "404": html, "503": html },
            errors: ["405", "500"],
          },
        },
        pageAnswers: {
          method: "POST",
          path: "/s/{id}/answers",
          access: "signature",
          listener: "outcomes",
          handler: whenOn((request) => takeAnswers(context, request)),
          doc: {
            summary:
              "The question's form (application/x-www-form-urlencoded: question, answer…, fingerprint): stores the answer, 303 to /s/{id}",
            parameters: [sessionId],
            success: {
              "303": { description: "To /s/{id} (with ?invalid=1 when the answer does not fit)." },
              "404": html,
              "503": html,
            },
            errors: ["405", "500"],
          },
        },
        pageGo: {
          method: "POST",
          path: "/s/{id}/go",
          access: "signature",
          listener: "outcomes",
          handler: whenOn((request) => goToSurvey(context, request)),
          doc: {
            summary:
              "The survey's button (a form: fingerprint): 303 to the survey's entry link, or to /s/{id} when the step moved on",
            parameters: [sessionId],
            success: { "303": { description: "To the entry link, or /s/{id}." }, "404": html, "503": html },
            errors: ["405", "500"],
          },
        },
      },
    }),
  };
}
