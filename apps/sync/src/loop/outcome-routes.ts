import { encryptionSigning, verifySignedUrl } from "@sds/routing";
import { parseFeedQuery } from "../feed/feed-query.ts";
import { readFeed } from "../feed/feed-reader.ts";
import { errorReply, json, type Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import { AccountUnavailableError } from "./loop-errors.ts";
import type { LoopContext } from "./loop-context.ts";
import type { OutcomePage, OutcomeReceipt } from "./loop-schemas.ts";
import { isOutcomeKind, outcomeKinds } from "./store/loop-store.ts";

/**
 * The absolute URL the marketplace signed: the configured public URL (or `http://` + `Host`)
 * followed by the request target exactly as received, never decoded nor re-encoded (a signature
 * is over bytes).
 */
export function receivedUrl(request: RouteRequest, publicUrl: string | undefined): string {
  const target = request.incoming.url ?? "/";
  if (publicUrl !== undefined) return `${publicUrl}${target}`;
  return `http://${request.incoming.headers.host ?? "localhost"}${target}`;
}

/**
 * `GET` or `POST /v1/outcomes/{complete|terminate|overquota|security}?vq_token=…`: the
 * marketplace's server-to-server call at the end of a respondent's session. Authenticated by
 * signature, not bearer token: when the account's `OutgoingEncryption` is enabled, a missing or
 * invalid signature is a 403 and nothing is recorded. One record per (token, outcome): a repeat
 * answers 200 with `recorded: false`; another outcome for the same token is recorded as a
 * transition. 200 only once the record is committed. HEAD checks the same and records nothing.
 */
export async function receiveOutcome(loop: LoopContext, request: RouteRequest): Promise<Reply> {
  const outcome = request.params.outcome ?? "";
  if (!isOutcomeKind(outcome)) return errorReply(404, "not_found", `no outcome ${JSON.stringify(outcome)}: one of ${outcomeKinds.join(", ")}`);
  const token = request.url.searchParams.get(loop.tokenParameter);
  if (token === null || token === "") return errorReply(400, "bad_request", `${loop.tokenParameter}: the transaction token is required`);
  const settings = loop.account.current;
  if (!settings) throw new AccountUnavailableError();
  const signing = encryptionSigning(settings.OutgoingEncryption);
  if (signing) {
    const verdict = verifySignedUrl(receivedUrl(request, loop.publicUrl), signing.key, signing.scheme);
    if (!verdict.valid) return errorReply(403, `signature_${verdict.reason}`, verdict.message);
  }
  // HEAD (a link checker, a monitor) must change nothing: the call checked, nothing recorded.
  if (request.incoming.method === "HEAD") return json(200, {});
  const result = await loop.outcomes.recordOutcome({ token, outcome, at: new Date() });
  if (result.recorded) {
    loop.countOutcome(outcome);
    loop.outcomeNotifier.publish(result.record.sequence);
  }
  return json(200, { recorded: result.recorded, outcome: result.record } satisfies OutcomeReceipt);
}

/** `GET /v1/outcomes?after=N&limit=M&wait=S`: recorded outcomes in order, long-polling like the change feed. */
export async function listOutcomes(loop: LoopContext, request: RouteRequest): Promise<Reply> {
  const query = parseFeedQuery(request.url.searchParams);
  const store = loop.outcomes;
  const read = await readFeed({ list: (after, limit) => store.listOutcomes(after, limit), horizon: () => store.feedHorizon(), notifier: loop.outcomeNotifier }, query, request.signal);
  if (read.kind === "expired") {
    return errorReply(
      410,
      "outcomes_expired",
      `outcomes after sequence ${query.after} are no longer kept: the outcome feed now starts after sequence ${read.horizon} (older outcomes are pruned, see SYNC_OUTCOME_RETENTION_SECONDS). ` +
        `What was pruned cannot be read again; go on with GET /v1/outcomes?after=${read.horizon}.`,
    );
  }
  const outcomes = read.entries;
  return json(200, { outcomes, next: outcomes.at(-1)?.sequence ?? query.after, hasMore: outcomes.length === query.limit } satisfies OutcomePage);
}
