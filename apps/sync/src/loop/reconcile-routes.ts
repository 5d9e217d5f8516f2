import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { LoopText, loopTextProblem, ReconcileBody, Reconciled, type ReconcileLine } from "@sds/sync-client";
import type { z } from "zod";
import { StoreError } from "../common/errors.ts";
import { rollBack, type Program } from "../database/program.ts";
import { MAX_BATCH_BODY_BYTES, readJsonBody } from "../http/request-body.ts";
import { errorReply, json, type Reply } from "../http/respond.ts";
import type { Parameter } from "../http/route-doc.ts";
import type { RouteRequest } from "../http/route-module.ts";
import type { LoopContext } from "./loop-context.ts";
import { claimIdempotencyKey, recordIdempotentAnswer, type IdempotentRequest } from "./store/idempotency-records.ts";
import type { RecordingSettings } from "./store/loop-records.ts";
import { reconcileLines } from "./store/reconcile-records.ts";

type ReconcileRequest = z.output<typeof ReconcileBody>["outcomes"];

/** The header that makes a batch safe to send again (the name is the contract). */
const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

/** How `/openapi.json` describes {@link IDEMPOTENCY_KEY_HEADER}. */
export const reconcileIdempotencyKey: Parameter = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: "header",
  description:
    "Applies the batch once per key (kept SYNC_IDEMPOTENCY_RETENTION_SECONDS, 7 days by default): a repeat with the same lines answers the first answer (`replayed: true`) and records nothing; other lines under the key are a 422 `idempotency_key_reused`; a concurrent repeat waits for the first. 1 to 200 characters, no control characters. Ignored on a dry run.",
  schema: LoopText,
};

/**
 * `POST /v1/outcomes/reconcile`: the marketplace's corrections after the fact (a complete
 * rejected for quality, a terminate approved), from a report. Each changes the entry's current
 * outcome as a transition in the outcome feed, with its reason; nothing is overwritten, and
 * earnings are reported net of reversals. A line that repeats the current outcome records
 * nothing; a token no entry carries is reported and not recorded. Lines apply in order, all in
 * one transaction with the batch's tokens locked: all of them or none. With an `Idempotency-Key`,
 * a repeat of the same body answers the first answer and records nothing. With `dryRun`, the
 * same transaction runs and is rolled back: each line says what it would do, and a line the
 * store would refuse fails the dry run as it would fail the batch.
 */
export async function reconcileOutcomes(loop: LoopContext, request: RouteRequest): Promise<Reply> {
  const key = idempotencyKeyOf(request.incoming);
  if (typeof key === "object") return key;
  const body = await readJsonBody(request.incoming, ReconcileBody, MAX_BATCH_BODY_BYTES);
  if (!body.ok) return body.reply;
  const dryRun = body.value.dryRun === true;
  const lines = body.value.outcomes;
  // A dry run records nothing, so there is nothing to replay: its key is not kept.
  const idempotent =
    key === undefined || dryRun ? undefined : { scope: "reconcile", key, fingerprint: fingerprintOf(lines) };
  const done = await loop.store.write(
    "reconciling outcomes",
    reconciliation(lines, { at: new Date(), dryRun, idempotent, settings: loop.store.recordingSettings }),
  );
  switch (done.kind) {
    case "reused":
      return errorReply(
        422,
        "idempotency_key_reused",
        `this ${IDEMPOTENCY_KEY_HEADER} was sent earlier with another body; nothing was recorded: send these lines with a fresh key`,
      );
    case "replayed":
      return json(200, { ...storedAnswer(done.answer), replayed: true } satisfies Reconciled);
    case "answered":
      publishRecorded(loop, done.answer.results);
      return json(200, done.answer);
  }
}

/** What {@link reconciliation} did. */
type Reconciliation =
  | { readonly kind: "answered"; readonly answer: Reconciled }
  | { readonly kind: "replayed"; readonly answer: unknown }
  | { readonly kind: "reused" };

/** The one write transaction of a reconciliation: the key first (its lock), then the lines; rolled back on a dry run. */
function* reconciliation(
  lines: ReconcileRequest,
  options: {
    readonly at: Date;
    readonly dryRun: boolean;
    readonly idempotent: IdempotentRequest | undefined;
    readonly settings: RecordingSettings;
  },
): Program<Reconciliation> {
  const { at, dryRun, idempotent, settings } = options;
  if (idempotent !== undefined) {
    const claim = yield* claimIdempotencyKey(idempotent);
    if (claim.kind === "replay") return { kind: "replayed", answer: claim.answer };
    if (claim.kind === "reused") return { kind: "reused" };
  }
  const results = yield* reconcileLines(lines, at, settings);
  const answer = answerOf(results, dryRun);
  if (dryRun) return rollBack<Reconciliation>({ kind: "answered", answer });
  if (idempotent !== undefined) yield* recordIdempotentAnswer(idempotent, answer, at);
  return { kind: "answered", answer };
}

/** The answer to the lines' results; a dry run's lines hold no place in the feed (the places they took were rolled back). */
function answerOf(results: ReconcileLine[], dryRun: boolean): Reconciled {
  const count = (status: ReconcileLine["status"]) => results.filter((line) => line.status === status).length;
  return {
    dryRun,
    applied: !dryRun,
    replayed: false,
    changed: count("changed"),
    unchanged: count("unchanged"),
    unknown: count("unknown-token"),
    results: dryRun ? results.map((line) => ({ ...line, sequence: null })) : results,
  };
}

/** Wakes the feed's long-polls and counts the recorded outcomes, once the transaction committed. */
function publishRecorded(loop: LoopContext, results: readonly ReconcileLine[]): void {
  let latest = 0;
  for (const line of results) {
    if (line.status !== "changed" || line.sequence === null) continue;
    loop.countOutcome(line.outcome);
    latest = Math.max(latest, line.sequence);
  }
  if (latest > 0) loop.outcomeNotifier.publish(latest);
}

/** The header's key, undefined when absent, or the 400 that refuses it (held to the rule of tokens). */
function idempotencyKeyOf(incoming: IncomingMessage): string | undefined | Reply {
  // `headers` would join two lines of the header into one key ("a, b"); `headersDistinct` keeps them apart.
  const values = incoming.headersDistinct[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  if (values === undefined) return undefined;
  const [value] = values;
  if (values.length !== 1 || value === undefined)
    return errorReply(400, "bad_request", `the ${IDEMPOTENCY_KEY_HEADER} header must be sent once`);
  const problem = loopTextProblem(value);
  return problem === undefined
    ? value
    : errorReply(400, "bad_request", `the ${IDEMPOTENCY_KEY_HEADER} header ${problem}`);
}

/** The digest of the lines as they apply: equal for the same lines in the same order, whatever the JSON's spacing or key order. */
function fingerprintOf(lines: ReconcileRequest): string {
  const canonical = JSON.stringify(lines.map((line) => [line.token, line.outcome, line.reason ?? null]));
  return createHash("sha256").update(canonical).digest("hex");
}

/** A stored answer, checked: unknown data in the store is an error, never an answer. */
function storedAnswer(answer: unknown): Reconciled {
  const parsed = Reconciled.safeParse(answer);
  if (!parsed.success) throw new StoreError("a stored reconciliation answer does not match its schema");
  return parsed.data;
}
