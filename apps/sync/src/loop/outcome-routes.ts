import { encryptionSigning, verifySignedUrl } from "@sds/routing";
import type { Handler, RouteRequest } from "../http/routes.ts";
import { parseChangesQuery } from "../http/params.ts";
import type { OutcomePage, OutcomeReceipt } from "../http/api-schemas.ts";
import { errorReply, json, type Reply } from "../http/respond.ts";
import { isOutcomeKind, outcomeKinds, type OutcomeStore } from "./store/loop-store.ts";

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
export const receiveOutcome: Handler = async (context, request) => {
  const outcome = request.params.outcome ?? "";
  if (!isOutcomeKind(outcome)) return errorReply(404, "not_found", `no outcome ${JSON.stringify(outcome)}: one of ${outcomeKinds.join(", ")}`);
  const { loop } = context;
  const token = request.url.searchParams.get(loop.tokenParameter);
  if (token === null || token === "") return errorReply(400, "bad_request", `${loop.tokenParameter}: the transaction token is required`);
  const settings = loop.account.current;
  if (!settings) return errorReply(503, "account_unavailable", "the account's encryption settings have not been read yet; retry shortly", { "retry-after": "5" });
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
};

/** 410 `outcomes_expired` when outcomes after `after` were pruned (`SYNC_OUTCOME_RETENTION_SECONDS`), with where to go on from. */
async function outcomesExpired(store: OutcomeStore, after: number): Promise<Reply | undefined> {
  const horizon = await store.feedHorizon();
  if (after >= horizon) return undefined;
  return errorReply(
    410,
    "outcomes_expired",
    `outcomes after sequence ${after} are no longer kept: the outcome feed now starts after sequence ${horizon} (older outcomes are pruned, see SYNC_OUTCOME_RETENTION_SECONDS). ` +
      `What was pruned cannot be read again; go on with GET /v1/outcomes?after=${horizon}.`,
  );
}

/** `GET /v1/outcomes?after=N&limit=M&wait=S`: recorded outcomes in order, long-polling like the change feed. */
export const listOutcomes: Handler = async (context, request) => {
  const query = parseChangesQuery(request.url.searchParams);
  const { outcomes: store, outcomeNotifier } = context.loop;
  let outcomes = await store.listOutcomes(query.after, query.limit);
  // The horizon is read after the outcomes: pruning only ever raises it, so a read it does not pass was complete.
  let expired = await outcomesExpired(store, query.after);
  if (expired) return expired;
  if (outcomes.length === 0 && query.waitSeconds > 0) {
    await outcomeNotifier.waitForSequenceAbove(query.after, query.waitSeconds * 1000, request.signal);
    outcomes = await store.listOutcomes(query.after, query.limit);
    expired = await outcomesExpired(store, query.after);
    if (expired) return expired;
  }
  return json(200, { outcomes, next: outcomes.at(-1)?.sequence ?? query.after, hasMore: outcomes.length === query.limit } satisfies OutcomePage);
};
