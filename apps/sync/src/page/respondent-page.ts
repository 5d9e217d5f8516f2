import { randomBytes } from "node:crypto";
import { verifyStartLink, type SessionInventory } from "@sds/routing";
import { SessionBody, type Session, type SessionAnswers } from "@sds/sync-client";
import { z } from "zod";
import type { LoopContext } from "../loop/loop-context.ts";
import type { Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import { readFormBody } from "../http/request-body.ts";
import { readSession } from "../session/session-records.ts";
import { withSession } from "../session/session-return.ts";
import type { Sessions } from "../session/sessions.ts";
import { fingerprintScript } from "./fingerprint-script.ts";
import type { PageLanguages } from "./page-languages.ts";
import { renderMessage, renderPage, renderStep, type PageFrame } from "./page-render.ts";
import { pageStrings, type PageLocale, type PageStrings } from "./page-strings.ts";
import { rememberStartLink, sessionOfStartLink, startLinkKey, startLinkReturnUrl } from "./start-link-records.ts";

/** An address the session body takes (the socket's may be another shape, such as a Unix socket's). */
const ClientAddress = z.union([z.ipv4(), z.ipv6()]);

/** The path of the page's script. */
export const FINGERPRINT_SCRIPT_PATH = "/s/fingerprint.js";

/** What the respondent page works with. */
export interface RespondentPageContext {
  readonly sessions: Sessions;
  readonly loop: LoopContext;
  /** The live surveys the sessions offer (their Loi, for a survey step). */
  readonly inventory: SessionInventory;
  readonly languages: PageLanguages;
  /** `SYNC_SESSION_SECRET`; undefined: the page is off. */
  readonly secret: string | undefined;
  /** `SYNC_START_LINK_SECONDS`. */
  readonly startLinkSeconds: number;
  /** `SYNC_SESSION_TTL_SECONDS`: a start link is remembered as long as its session may live. */
  readonly sessionTtlSeconds: number;
  /** `SYNC_EMBED_ORIGINS`: who may frame the page. */
  readonly embedOrigins: readonly string[];
  readonly clock: () => Date;
}

/**
 * The headers of every `/s/*` answer: nothing cached (a session id in a URL is the only key),
 * no referrer sent onwards, and a CSP that allows the page's own style and script by nonce,
 * forms to itself (and to the survey a step sends to), no request elsewhere, and frames only
 * by `SYNC_EMBED_ORIGINS`.
 */
function pageHeaders(context: RespondentPageContext, nonce: string, formTargets: readonly string[] = []) {
  const ancestors = context.embedOrigins.length === 0 ? "'none'" : context.embedOrigins.join(" ");
  return {
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "content-security-policy": [
      "default-src 'none'",
      `style-src 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
      `form-action 'self'${formTargets.map((target) => ` ${target}`).join("")}`,
      `frame-ancestors ${ancestors}`,
      "base-uri 'none'",
    ].join("; "),
  };
}

function html(
  context: RespondentPageContext,
  status: number,
  frame: PageFrame,
  body: string,
  formTargets?: readonly string[],
): Reply {
  return {
    status,
    body,
    contentType: "text/html; charset=utf-8",
    headers: pageHeaders(context, frame.nonce, formTargets),
  };
}

function redirect(context: RespondentPageContext, location: string): Reply {
  return {
    status: 303,
    body: "",
    contentType: "text/plain; charset=utf-8",
    headers: { ...pageHeaders(context, randomBytes(16).toString("base64")), location },
  };
}

function frameOf(locale: PageLocale, script = false): PageFrame {
  return { locale, nonce: randomBytes(16).toString("base64"), ...(script ? { script: FINGERPRINT_SCRIPT_PATH } : {}) };
}

function message(
  context: RespondentPageContext,
  status: number,
  locale: PageLocale,
  pick: (strings: PageStrings) => [string, string],
): Reply {
  const frame = frameOf(locale);
  const [title, text] = pick(pageStrings[locale]);
  return html(context, status, frame, renderMessage(frame, title, text));
}

/** The answer of every `/s/*` route while `SYNC_SESSION_SECRET` is unset. */
export function pageOff(context: RespondentPageContext): Reply {
  return message(context, 404, "en", (strings) => [strings.refusedTitle, strings.startRefused.off]);
}

/**
 * `GET /s/start?uid=…&languageId=…[&device=…][&returnUrl=…]&ts=…&sig=…`: a valid start link
 * starts a session (with the respondent's address and user agent, which the quality gate
 * judges) and answers 303 to `/s/<id>`; used again while its session is open, it lands on that
 * session. Forged, expired, or used after its session ended: a 403 page that says which. A
 * HEAD (a link checker) only verifies: 200, and no session starts.
 */
export async function startFromLink(
  context: RespondentPageContext,
  request: RouteRequest,
  secret: string,
): Promise<Reply> {
  const now = context.clock();
  const raw = request.url.search.startsWith("?") ? request.url.search.slice(1) : request.url.search;
  const verdict = verifyStartLink(raw, secret, now, context.startLinkSeconds);
  if (!verdict.valid)
    return message(context, 403, "en", (strings) => [
      strings.refusedTitle,
      verdict.reason === "expired" ? strings.startRefused.expired : strings.startRefused.forged,
    ]);
  const { link } = verdict;
  const locale = await context.languages.localeOf(link.languageId);
  // A link checker's HEAD starts nothing: the link is valid, which is all it learns.
  if (request.incoming.method === "HEAD") return html(context, 200, frameOf(locale), "");
  const used = (strings: PageStrings): [string, string] => [strings.refusedTitle, strings.startRefused.used];
  const key = startLinkKey(verdict.signature);
  const known = await context.loop.store.read(sessionOfStartLink(key));
  if (known !== undefined) {
    const session = await context.loop.store.read(readSession(known));
    return session?.state === "open" && Date.parse(session.expiresAt) > now.getTime()
      ? redirect(context, `/s/${encodeURIComponent(known)}`)
      : message(context, 403, locale, used);
  }
  // The link's fields as POST /v1/sessions takes them (a uid, device or returnUrl it would refuse is refused here too).
  const body = SessionBody.safeParse({
    uid: link.uid,
    languageId: link.languageId,
    ...(link.device === undefined ? {} : { device: link.device }),
    ...(link.returnUrl === undefined ? {} : { returnUrl: link.returnUrl }),
  });
  if (!body.success)
    return message(context, 400, locale, (strings) => [strings.refusedTitle, strings.startRefused.forged]);
  const userAgent = request.incoming.headers["user-agent"];
  const ip = ClientAddress.safeParse(request.clientAddress);
  // The returnUrl stays with the link: the survey's return then lands on this page, whose end links to it.
  const { returnUrl: _kept, ...fields } = body.data;
  const started = await context.sessions.start({
    ...fields,
    ...(ip.success ? { ip: ip.data } : {}),
    ...(userAgent === undefined ? {} : { userAgent: userAgent.slice(0, 1000) }),
  });
  if (started.kind === "reply")
    return message(
      context,
      started.reply.status === 403 ? 403 : started.reply.status === 400 ? 400 : 503,
      locale,
      (strings) => [
        strings.refusedTitle,
        started.reply.status === 403
          ? strings.done.excluded
          : started.reply.status === 400
            ? strings.startRefused.forged
            : strings.startRefused.unavailable,
      ],
    );
  const id = started.session.id;
  const remembered = Math.max(
    (link.ts + context.startLinkSeconds) * 1000,
    now.getTime() + context.sessionTtlSeconds * 1000,
  );
  const winner = await context.loop.store.write(
    "remembering a start link",
    rememberStartLink({ key, sessionId: id, returnUrl: body.data.returnUrl }, new Date(remembered), now),
  );
  // The same link opened twice at once: the session remembered first is the link's; this one ends.
  if (winner !== id) await context.sessions.end(id);
  return redirect(context, `/s/${encodeURIComponent(winner)}`);
}

/** `GET /s/{id}`: the session's next step (a question's form, a survey's button, the end). */
export async function showStep(context: RespondentPageContext, request: RouteRequest): Promise<Reply> {
  const id = request.params.id ?? "";
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

/** The form fields the page posts: the device fingerprint, when the script computed one. */
function fingerprintOf(form: URLSearchParams): { readonly fingerprint?: string } {
  const value = form.get("fingerprint")?.trim() ?? "";
  return value.length >= 8 && value.length <= 200 ? { fingerprint: value } : {};
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
  if (!/^\d{1,12}$/.test(question) || given.length === 0) return redirect(context, `${path}?invalid=1`);
  const answers: SessionAnswers = { [question]: given };
  const outcome = await context.sessions.answer(id, answers, fingerprintOf(form.value));
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
    headers: pageHeaders(context, randomBytes(16).toString("base64")),
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
