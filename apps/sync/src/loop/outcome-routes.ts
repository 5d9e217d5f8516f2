import { verifySignedUrl } from "@sds/routing";
import { isOutcomeKind, loopTextProblem, outcomeKinds, type OutcomePage, type OutcomeReceipt } from "@sds/sync-client";
import { parseFeedQuery } from "../feed/feed-query.ts";
import { readFeed } from "../feed/feed-reader.ts";
import { errorReply, json, type Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import { AccountUnavailableError } from "./loop-errors.ts";
import type { LoopContext } from "./loop-context.ts";
import type { RefusalReason } from "./receiver-refusals.ts";

/** A `Host` header that is a plain `host[:port]` (a name, an IPv4 address or a bracketed IPv6 one): nothing a signature check could be fooled by. */
const PLAIN_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Headers only a browser sends: a marketplace's server-to-server call never carries them. (Not
 * `Sec-Fetch-Mode`: Node's own fetch sends it on every request, server to server included.)
 */
const BROWSER_HEADERS = ["origin", "referer", "cookie", "sec-fetch-site"] as const;

/**
 * The absolute URL the marketplace signed: the configured public URL (`SYNC_OUTCOMES_PUBLIC_URL`)
 * or, when unset, this listener's own origin (from the configuration, never from `Host`),
 * followed by the request target exactly as received, never decoded nor re-encoded (a signature
 * is over bytes). A URL signed for another host, path, token or outcome cannot verify.
 */
export function receivedUrl(request: RouteRequest, publicUrl: string | undefined): string {
  return `${publicUrl ?? request.origin}${request.incoming.url ?? "/"}`;
}

/** Counts a refused call and answers it. */
function refuse(
  loop: LoopContext,
  reason: RefusalReason,
  status: number,
  code: string,
  message: string,
  headers?: Readonly<Record<string, string>>,
): Reply {
  loop.refusals.count(reason, code);
  return errorReply(status, code, message, headers);
}

/**
 * `GET` or `POST /v1/outcomes/{complete|terminate|overquota|security}?vq_token=…`: the
 * marketplace's server-to-server call at the end of a respondent's session. Authenticated by
 * signature, not bearer token: when the account's `OutgoingEncryption` is enabled, a missing or
 * invalid signature is a 403 and nothing is recorded; when it is misconfigured (enabled with no
 * key, an unknown algorithm), a 503 the marketplace retries. Calls a browser makes (an `<img>`,
 * a form) are refused. A change of the token's current outcome is recorded as a transition; a
 * repeat of the current outcome answers 200 with `recorded: false`. 200 only once the record
 * is committed. HEAD checks the same and records nothing. Every refusal is counted by reason.
 */
export async function receiveOutcome(loop: LoopContext, request: RouteRequest): Promise<Reply> {
  const outcome = request.params.outcome ?? "";
  if (!isOutcomeKind(outcome))
    return refuse(
      loop,
      "unknown_outcome",
      404,
      "not_found",
      `no outcome ${JSON.stringify(outcome)}: one of ${outcomeKinds.join(", ")}`,
    );
  const headers = request.incoming.headers;
  const browserHeader = BROWSER_HEADERS.find((name) => headers[name] !== undefined);
  if (browserHeader !== undefined) {
    return refuse(
      loop,
      "browser_context",
      403,
      "browser_context",
      `outcome calls come from the marketplace's server, never from a browser (the call carries ${browserHeader})`,
    );
  }
  if (headers.host !== undefined && !PLAIN_HOST.test(headers.host))
    return refuse(loop, "bad_host", 400, "bad_request", "Host: must be a plain host[:port]");
  const target = request.incoming.url ?? "/";
  if (target.includes("#"))
    return refuse(loop, "bad_target", 400, "bad_request", "the request target must not hold a fragment");
  if (/%(?![0-9A-Fa-f]{2})/.test(target))
    return refuse(loop, "bad_target", 400, "bad_request", "the request target holds a malformed percent-encoding");
  const tokens = request.url.searchParams.getAll(loop.tokenParameter);
  if (tokens.length !== 1 || tokens[0] === "") {
    return refuse(
      loop,
      "missing_token",
      400,
      "bad_request",
      `${loop.tokenParameter}: exactly one transaction token is required${tokens.length > 1 ? ` (got ${tokens.length})` : ""}`,
    );
  }
  const token = tokens[0] ?? "";
  // Percent-decoding turns bytes that are not UTF-8 (a lone surrogate's, a cut sequence) into U+FFFD: the token sent is not the one read.
  const problem = token.includes("\uFFFD") ? "is not valid percent-encoded UTF-8" : loopTextProblem(token);
  if (problem !== undefined) return refuse(loop, "bad_token", 400, "bad_request", `${loop.tokenParameter}: ${problem}`);
  const verdicts = loop.account.verdicts;
  if (!verdicts) {
    loop.refusals.count("account_unavailable");
    throw new AccountUnavailableError();
  }
  const outgoing = verdicts.outgoing;
  if (outgoing.kind === "misconfigured") {
    return refuse(
      loop,
      "unverifiable",
      503,
      "outcomes_unverifiable",
      `outcomes cannot be verified: ${outgoing.problem}; retry later`,
      { "retry-after": "60" },
    );
  }
  if (outgoing.kind === "on") {
    const verdict = verifySignedUrl(
      receivedUrl(request, loop.publicUrl),
      outgoing.signing.key,
      outgoing.signing.scheme,
    );
    if (!verdict.valid) return refuse(loop, "bad_signature", 403, `signature_${verdict.reason}`, verdict.message);
  }
  // HEAD (a link checker, a monitor) must change nothing: the call checked, nothing recorded.
  if (request.incoming.method === "HEAD") return json(200, {});
  const result = await loop.store.recordOutcome({ token, outcome, at: new Date() });
  if (result.recorded) {
    loop.countOutcome(outcome);
    loop.outcomeNotifier.publish(result.record.sequence);
  }
  return json(200, { recorded: result.recorded, outcome: result.record } satisfies OutcomeReceipt);
}

/** `GET /v1/outcomes?after=N&limit=M&wait=S`: recorded outcomes in order, long-polling like the change feed. */
export async function listOutcomes(loop: LoopContext, request: RouteRequest): Promise<Reply> {
  const query = parseFeedQuery(request.url.searchParams);
  const store = loop.store;
  const read = await readFeed(
    {
      list: (after, limit) => store.listOutcomes(after, limit),
      horizon: () => store.feedHorizon(),
      notifier: loop.outcomeNotifier,
    },
    query,
    request.signal,
  );
  if (read.kind === "expired") {
    return errorReply(
      410,
      "outcomes_expired",
      `outcomes after sequence ${query.after} are no longer kept: the outcome feed now starts after sequence ${read.horizon} (older outcomes are pruned, see SYNC_OUTCOME_RETENTION_SECONDS). ` +
        `What was pruned cannot be read again; go on with GET /v1/outcomes?after=${read.horizon}.`,
    );
  }
  const outcomes = read.entries;
  return json(200, {
    outcomes,
    next: outcomes.at(-1)?.sequence ?? query.after,
    hasMore: outcomes.length === query.limit,
  } satisfies OutcomePage);
}
