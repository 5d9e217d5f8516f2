import { randomBytes } from "node:crypto";
import type { SessionInventory } from "@sds/routing";
import type { Reply } from "../http/respond.ts";
import type { LoopContext } from "../loop/loop-context.ts";
import type { Sessions } from "../session/sessions.ts";
import type { PageLanguages } from "./page-languages.ts";
import { renderMessage, type PageFrame } from "./page-render.ts";
import { pageStrings, type PageLocale, type PageStrings } from "./page-strings.ts";

/*
 * What every answer of the respondent page is made of: its context, its headers, an HTML page,
 * a 303, and a page that only says something.
 */

/** The path of the page's script. */
export const FINGERPRINT_SCRIPT_PATH = "/s/fingerprint.js";

/** A fresh CSP nonce: 128 random bits, one per answer. */
function newNonce(): string {
  return randomBytes(16).toString("base64");
}

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
export function pageHeaders(
  context: RespondentPageContext,
  nonce: string = newNonce(),
  formTargets: readonly string[] = [],
) {
  const ancestors = context.embedOrigins.length === 0 ? "'none'" : context.embedOrigins.join(" ");
  return {
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    // A session's page is one respondent's: never in a search index.
    "x-robots-tag": "noindex, nofollow",
    // For browsers older than CSP's frame-ancestors (the header cannot name origins, so only when none may frame).
    ...(context.embedOrigins.length === 0 ? { "x-frame-options": "DENY" } : {}),
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

export function html(
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

export function redirect(context: RespondentPageContext, location: string): Reply {
  return {
    status: 303,
    body: "",
    contentType: "text/plain; charset=utf-8",
    headers: { ...pageHeaders(context), location },
  };
}

export function frameOf(locale: PageLocale, script = false): PageFrame {
  return { locale, nonce: newNonce(), ...(script ? { script: FINGERPRINT_SCRIPT_PATH } : {}) };
}

export function message(
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
