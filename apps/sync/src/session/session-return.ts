import { escapeHtml } from "../http/html-text.ts";
import { verifySignedUrl } from "@sds/routing";
import { errorReply, json, type Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import { AccountUnavailableError } from "../loop/loop-errors.ts";
import type { LoopContext } from "../loop/loop-context.ts";
import { loopTextProblem } from "@sds/sync-client";
import { receivedUrl } from "../loop/outcome-routes.ts";
import { isOutcomeKind, outcomeKinds } from "../loop/store/loop-store.ts";
import { findReturnTarget, takeReturn } from "./attempt-records.ts";

/** What the return reads besides the loop. */
export interface ReturnContext {
  readonly loop: LoopContext;
  /** `SYNC_SESSION_RETURN_URL`: the supplier's respondent page, when set. */
  readonly returnUrl: string | undefined;
  readonly clock: () => Date;
}

/**
 * `url` with `session=<id>` added to its query. Appended, never re-serialised: the supplier's
 * own parameters keep their bytes (`%20` stays `%20`), so a page that signs its query still
 * verifies it. A `session` parameter the URL already has is replaced.
 */
export function withSession(url: string, sessionId: string): string {
  const target = new URL(url);
  if (target.searchParams.has("session")) target.searchParams.set("session", sessionId);
  else target.search = `${target.search === "" ? "" : `${target.search}&`}session=${encodeURIComponent(sessionId)}`;
  return target.toString();
}

/**
 * `GET /v1/return/{complete|terminate|overquota|security}?vq_token=…`: where the account's
 * `RedirectUrls` send the respondent at the end of a survey. Verified like the S2S receiver when
 * the account's `OutgoingEncryption` is enabled (over the configured public URL, never `Host`).
 * The token's session attempt is recorded as returned (the first return or outcome decides the
 * next step) and the respondent is sent on with 303: to the session's `returnUrl`, else
 * `SYNC_SESSION_RETURN_URL`, with `session=<id>`; else to `/s/<id>`. When the account's S2S
 * URLs are disabled, a signed return is recorded as the entry's outcome (source `redirect`);
 * an unsigned one never is. An unknown token, or a session that expired, is 404 (the signed
 * return of an expired session's entry is still recorded as its outcome: it is money).
 */
export async function receiveReturn(context: ReturnContext, request: RouteRequest): Promise<Reply> {
  const { loop } = context;
  const outcome = request.params.outcome ?? "";
  if (!isOutcomeKind(outcome))
    return errorReply(404, "not_found", `no return ${JSON.stringify(outcome)}: one of ${outcomeKinds.join(", ")}`);
  const tokens = request.url.searchParams.getAll(loop.tokenParameter);
  if (tokens.length !== 1 || tokens[0] === "")
    return errorReply(400, "bad_request", `${loop.tokenParameter}: exactly one transaction token is required`);
  const token = tokens[0] ?? "";
  const problem = token.includes("\uFFFD") ? "is not valid percent-encoded UTF-8" : loopTextProblem(token);
  if (problem !== undefined) return errorReply(400, "bad_request", `${loop.tokenParameter}: ${problem}`);
  const verdicts = loop.account.verdicts;
  if (!verdicts) throw new AccountUnavailableError();
  const outgoing = verdicts.outgoing;
  if (outgoing.kind === "misconfigured")
    return errorReply(503, "returns_unverifiable", `returns cannot be verified: ${outgoing.problem}; retry later`, {
      "retry-after": "60",
    });
  let signed = false;
  if (outgoing.kind === "on") {
    const verdict = verifySignedUrl(
      receivedUrl(request, loop.publicUrl),
      outgoing.signing.key,
      outgoing.signing.scheme,
    );
    if (!verdict.valid) return errorReply(403, `signature_${verdict.reason}`, verdict.message);
    signed = true;
  }
  const now = context.clock();
  // HEAD (a link checker) reads; a return records itself in the transaction that finds its session.
  const target =
    request.incoming.method === "HEAD"
      ? await loop.store.read(findReturnTarget(token))
      : await loop.store.write("recording a return", takeReturn(token, outcome, now));
  const expired = target.kind === "attempt" && Date.parse(target.expiresAt) <= now.getTime();
  const gone = errorReply(404, "not_found", "no live session or entry carries this token");
  if (target.kind === "unknown" || (expired && request.incoming.method === "HEAD")) return gone;
  if (request.incoming.method === "HEAD") return json(200, {});
  // Without S2S calls the signed return is the only word of the outcome: record it, as the receiver
  // would, even when the session expired meanwhile (the buyer pays a complete however long it took).
  if (signed && loop.account.s2sEnabled === false) {
    const result = await loop.store.recordOutcome({ token, outcome, at: now, source: "redirect" });
    if (result.recorded) {
      loop.countOutcome(outcome);
      loop.outcomeNotifier.publish(result.record.sequence);
    }
  }
  if (expired) return gone;
  if (target.kind === "entry")
    return context.returnUrl === undefined
      ? minimalPage("Thank you", `The survey ended (${outcome}). You may close this page.`)
      : redirect(context.returnUrl);
  const page = target.returnUrl ?? context.returnUrl;
  return redirect(
    page === undefined ? `/s/${encodeURIComponent(target.sessionId)}` : withSession(page, target.sessionId),
  );
}

function redirect(location: string): Reply {
  return { status: 303, body: "", contentType: "text/plain; charset=utf-8", headers: { location } };
}

/** A minimal HTML page: where a return lands that belongs to no session and has nowhere else to go. */
function minimalPage(title: string, message: string, link?: { readonly href: string; readonly text: string }): Reply {
  const action = link === undefined ? "" : `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>`;
  return {
    status: 200,
    contentType: "text/html; charset=utf-8",
    headers: {
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
      "referrer-policy": "no-referrer",
    },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${action}</body></html>`,
  };
}
