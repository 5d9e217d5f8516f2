import { verifyStartLink } from "@sds/routing";
import { SessionBody } from "@sds/sync-client";
import { z } from "zod";
import type { Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import { readSession } from "../session/session-records.ts";
import { frameOf, html, message, redirect, type RespondentPageContext } from "./page-replies.ts";
import type { PageStrings } from "./page-strings.ts";
import { rememberStartLink, sessionOfStartLink, startLinkKey } from "./start-link-records.ts";

/** An address the session body takes (the socket's may be another shape, such as a Unix socket's). */
const ClientAddress = z.union([z.ipv4(), z.ipv6()]);

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
  // The query as received: the parsed URL re-encodes some bytes (an apostrophe becomes %27), and the signature is over the bytes sent.
  const target = request.incoming.url ?? "";
  const raw = target.includes("?") ? target.slice(target.indexOf("?") + 1) : "";
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
