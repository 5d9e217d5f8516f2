import { SessionAnswersBody, type Session } from "@sds/sync-client";
import type { Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import { readFormBody } from "../http/request-body.ts";
import { readSession } from "../session/session-records.ts";
import { withSession } from "../session/session-return.ts";
import { fingerprintScript } from "./fingerprint-script.ts";
import { frameOf, html, message, pageHeaders, redirect, type RespondentPageContext } from "./page-replies.ts";
import { renderPage, renderStep } from "./page-render.ts";
import { pageStrings } from "./page-strings.ts";
import { startLinkReturnUrl } from "./start-link-records.ts";

/*
 * The steps of a session as the respondent sees them: the step's page, the question's form, the
 * survey's button and the page's script.
 */

/** `GET /s/{id}`: the session's next step (a question's form, a survey's button, the end). */
export async function showStep(context: RespondentPageContext, request: RouteRequest): Promise<Reply> {
  const id = request.params.id ?? "";
  // A HEAD (a link checker, a preview) reads whether the session exists and decides nothing: a
  // GET decides the next step, and a survey step issues an entry.
  if (request.incoming.method === "HEAD") {
    const row = await context.loop.store.read(readSession(id));
    return row === undefined
      ? message(context, 404, "en", (strings) => [strings.refusedTitle, strings.notFound])
      : html(context, 200, frameOf("en"), "");
  }
  const outcome = await context.sessions.get(id, false);
  if (outcome.kind === "reply") return unavailable(context, outcome.reply);
  const { session } = outcome;
  const locale = await context.languages.localeOf(session.languageId);
  const frame = frameOf(locale, session.next.kind !== "done");
  const next = session.next;
  const returnUrl = next.kind === "done" ? await returnUrlOf(context, session) : undefined;
  const step = renderStep(frame, session, {
    strings: pageStrings[locale],
    loiMinutes: next.kind === "survey" ? context.inventory.get(next.surveyId)?.loiMinutes : undefined,
    returnUrl,
    invalid: request.url.searchParams.get("invalid") === "1",
  });
  const targets = next.kind === "survey" && URL.canParse(next.link) ? [new URL(next.link).origin] : [];
  return html(context, 200, frame, renderPage(frame, step.title, step.body), targets);
}

/** Where the end of a session links to: the session's returnUrl, else its start link's; with `session=<id>`. */
async function returnUrlOf(context: RespondentPageContext, session: Session): Promise<string | undefined> {
  const row = await context.loop.store.read(readSession(session.id));
  const returnUrl = row?.returnUrl ?? (await context.loop.store.read(startLinkReturnUrl(session.id)));
  return returnUrl === undefined ? undefined : withSession(returnUrl, session.id);
}

/**
 * The form fields the page posts: the device fingerprint, when the script computed one the API
 * would take (8 to 200 characters, no NUL): a browser is held to the API's rules, never trusted
 * more than a supplier's server.
 */
function fingerprintOf(form: URLSearchParams): { readonly fingerprint?: string } {
  const value = form.get("fingerprint")?.trim() ?? "";
  return SessionAnswersBody.shape.fingerprint.safeParse(value).success ? { fingerprint: value } : {};
}

/**
 * `POST /s/{id}/answers` (a form: `question`, one or more `answer`, `fingerprint`): stores the
 * answer and answers 303 to `/s/<id>`; an answer that does not fit the question comes back to
 * the question with a note (`?invalid=1`).
 */
export async function takeAnswers(context: RespondentPageContext, request: RouteRequest): Promise<Reply> {
  const id = request.params.id ?? "";
  const path = `/s/${encodeURIComponent(id)}`;
  const form = await readFormBody(request.incoming);
  if (!form.ok) return redirect(context, `${path}?invalid=1`);
  const question = form.value.get("question") ?? "";
  const given = form.value
    .getAll("answer")
    .map((value) => value.trim())
    .filter((value) => value !== "");
  // Held to the API's rules (POST /v1/sessions/{id}/answers): text no store keeps (a NUL) is refused here too.
  const body = SessionAnswersBody.safeParse({ answers: { [question]: given } });
  if (given.length === 0 || !body.success) return redirect(context, `${path}?invalid=1`);
  const outcome = await context.sessions.answer(id, body.data.answers, {
    ...fingerprintOf(form.value),
    fromPage: true,
  });
  if (outcome.kind === "reply")
    return outcome.reply.status === 400 ? redirect(context, `${path}?invalid=1`) : unavailable(context, outcome.reply);
  return redirect(context, path);
}

/**
 * `POST /s/{id}/go` (a form: `fingerprint`): the survey step's button. Passes the fingerprint
 * (the quality gate may still refuse the respondent) and answers 303 to the survey's entry
 * link, or back to `/s/<id>` when the step is no longer a survey.
 */
export async function goToSurvey(context: RespondentPageContext, request: RouteRequest): Promise<Reply> {
  const id = request.params.id ?? "";
  const form = await readFormBody(request.incoming);
  const client = form.ok ? fingerprintOf(form.value) : {};
  const outcome =
    client.fingerprint === undefined
      ? await context.sessions.get(id, false)
      : await context.sessions.answer(id, {}, client);
  if (outcome.kind === "reply") return unavailable(context, outcome.reply);
  const next = outcome.session.next;
  return redirect(context, next.kind === "survey" ? next.link : `/s/${encodeURIComponent(id)}`);
}

/** `GET /s/fingerprint.js`: the page's script. */
export function servePageScript(context: RespondentPageContext): Reply {
  return {
    status: 200,
    body: fingerprintScript(),
    contentType: "text/javascript; charset=utf-8",
    headers: pageHeaders(context),
  };
}

/** A session the page cannot show: unknown (404) or the store busy (503), as a page. */
function unavailable(context: RespondentPageContext, reply: Reply): Reply {
  return reply.status === 404
    ? message(context, 404, "en", (strings) => [strings.refusedTitle, strings.notFound])
    : message(context, reply.status >= 500 ? reply.status : 503, "en", (strings) => [
        strings.refusedTitle,
        strings.startRefused.unavailable,
      ]);
}
