import type { Session, SessionStep } from "@sds/sync-client";
import { escapeHtml } from "../http/html-text.ts";
import type { PageStrings } from "./page-strings.ts";

/*
 * The respondent page's HTML, rendered on the server: every step works without JavaScript
 * (forms and redirects); the one script only fills the forms' hidden `fingerprint` field. One
 * column that fits a 360 px phone, native controls with labels, visible focus, contrast above
 * WCAG AA, no external request. Each step's HTML with its CSS is a few kilobytes.
 */

/** The stylesheet of every page: inline, allowed by the answer's CSP nonce. */
const STYLE = `*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:1.0625rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background:#fff;overflow-wrap:anywhere}
main{max-width:36rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 1rem}
p{margin:0 0 1rem}
fieldset{border:0;margin:0 0 1.25rem;padding:0;min-width:0}
legend,.question{display:block;font-weight:600;font-size:1.125rem;margin:0 0 .5rem;padding:0}
.hint{color:#4a4a4a;font-size:.95rem;margin:0 0 .75rem}
.option{display:flex;align-items:flex-start;gap:.75rem;padding:.625rem .75rem;margin:0 0 .5rem;border:1px solid #767676;border-radius:.375rem}
.option input{width:1.25rem;height:1.25rem;margin:.15rem 0 0;flex:none}
.option label{flex:1}
input[type=number],input[type=text]{display:block;width:100%;font:inherit;padding:.5rem .625rem;margin:0 0 1.25rem;border:1px solid #767676;border-radius:.375rem;color:inherit;background:#fff}
button,.button{display:inline-block;font:inherit;font-weight:600;color:#fff;background:#0b57d0;border:0;border-radius:.375rem;padding:.75rem 1.5rem;min-height:2.75rem;text-decoration:none;cursor:pointer}
button:hover,.button:hover{background:#0842a0}
:focus-visible{outline:3px solid #b3261e;outline-offset:2px}
.error{color:#8c1d18;background:#fdecea;border-left:4px solid #b3261e;padding:.5rem .75rem}
@media (prefers-color-scheme:dark){body{color:#ececec;background:#151515}.hint{color:#c4c4c4}.option,input[type=number],input[type=text]{border-color:#9a9a9a;background:#151515}button,.button{background:#a8c7fa;color:#0b1d3a}button:hover,.button:hover{background:#d3e3fd}:focus-visible{outline-color:#f2b8b5}.error{color:#f9dedc;background:#410e0b}}`;

/** What every page carries: its language, the nonce its style and script run under. */
export interface PageFrame {
  readonly locale: string;
  readonly nonce: string;
  /** The path of the fingerprint script, when the page has a form to fill. */
  readonly script?: string | undefined;
}

/** A whole page: head, style, the body given, and the fingerprint script when asked. */
export function renderPage(frame: PageFrame, title: string, body: string): string {
  const script =
    frame.script === undefined
      ? ""
      : `<script nonce="${frame.nonce}" src="${escapeHtml(frame.script)}" defer></script>`;
  return `<!doctype html><html lang="${frame.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style nonce="${frame.nonce}">${STYLE}</style></head><body><main>${body}</main>${script}</body></html>`;
}

/** A page that only says something: a refused start link, an unknown session, the page turned off. */
export function renderMessage(frame: PageFrame, title: string, message: string): string {
  return renderPage(frame, title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}

/** What the step's page needs besides the session. */
export interface StepView {
  readonly strings: PageStrings;
  /** The survey's length in minutes, for a survey step. */
  readonly loiMinutes?: number | undefined;
  /** Where the respondent goes after the session, for the end. */
  readonly returnUrl?: string | undefined;
  /** The last answer did not fit the question. */
  readonly invalid?: boolean;
}

const FINGERPRINT_FIELD = '<input type="hidden" name="fingerprint" value="">';

/** The page of a session's next step: a question's form, a survey's button, or the end. */
export function renderStep(frame: PageFrame, session: Session, view: StepView): { title: string; body: string } {
  const { strings } = view;
  const path = `/s/${encodeURIComponent(session.id)}`;
  const next = session.next;
  const returned = session.attempts.some((attempt) => attempt.returned !== undefined);
  if (next.kind === "question") {
    const error = view.invalid === true ? `<p class="error" role="alert">${escapeHtml(strings.invalid)}</p>` : "";
    return {
      title: strings.questionTitle,
      body: `<h1>${escapeHtml(strings.questionTitle)}</h1>${error}<form method="post" action="${path}/answers">${questionFields(next, strings)}<input type="hidden" name="question" value="${next.qualificationId}">${FINGERPRINT_FIELD}<button type="submit">${escapeHtml(strings.next)}</button></form>`,
    };
  }
  if (next.kind === "survey") {
    const minutes =
      view.loiMinutes === undefined
        ? ""
        : ` ${escapeHtml(strings.surveyMinutes(Math.max(1, Math.round(view.loiMinutes))))}`;
    const thanks = returned ? `<p>${escapeHtml(strings.lastReturned)}</p>` : "";
    return {
      title: strings.surveyTitle,
      body: `<h1>${escapeHtml(strings.surveyTitle)}</h1>${thanks}<p>${escapeHtml(strings.surveyReady)}${minutes}</p><form method="post" action="${path}/go">${FINGERPRINT_FIELD}<button type="submit">${escapeHtml(strings.startSurvey)}</button></form>`,
    };
  }
  const onward =
    view.returnUrl === undefined
      ? `<p>${escapeHtml(strings.close)}</p>`
      : `<p><a class="button" href="${escapeHtml(view.returnUrl)}">${escapeHtml(strings.back)}</a></p>`;
  return {
    title: strings.doneTitle,
    body: `<h1>${escapeHtml(strings.doneTitle)}</h1><p>${escapeHtml(strings.done[next.reason])}</p>${onward}`,
  };
}

/** A question's fields: radio buttons, checkboxes, a number field or a text field, each labelled. */
function questionFields(step: Extract<SessionStep, { kind: "question" }>, strings: PageStrings): string {
  const text = escapeHtml(step.text);
  if (step.type === "numeric" || step.type === "text") {
    const input =
      step.type === "numeric"
        ? '<input type="number" id="answer" name="answer" inputmode="decimal" step="any" required aria-describedby="hint">'
        : '<input type="text" id="answer" name="answer" maxlength="200" required aria-describedby="hint">';
    const hint = step.type === "numeric" ? strings.numberLabel : strings.textLabel;
    return `<label class="question" for="answer">${text}</label><p class="hint" id="hint">${escapeHtml(hint)}</p>${input}`;
  }
  const type = step.type === "single" ? "radio" : "checkbox";
  const hint = step.type === "single" ? strings.choose : strings.chooseAny;
  const options = step.options
    .map(
      (option, index) =>
        `<div class="option"><input type="${type}" id="o${index}" name="answer" value="${escapeHtml(option.code)}"${type === "radio" ? " required" : ""}><label for="o${index}">${escapeHtml(option.text)}</label></div>`,
    )
    .join("");
  return `<fieldset aria-describedby="hint"><legend>${text}</legend><p class="hint" id="hint">${escapeHtml(hint)}</p>${options}</fieldset>`;
}
