import { z } from "zod";
import { readJsonBody } from "../http/request-body.ts";
import { json, type Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import type { LoopContext } from "./loop-context.ts";
import { loopText } from "./loop-text.ts";
import { outcomeKinds } from "./store/loop-store.ts";

/** The most reconciliations one request may carry (the CLI sends a file in batches). */
export const MAX_RECONCILE_BATCH = 1000;

/** Body of `POST /v1/outcomes/reconcile`. */
export const ReconcileBody = z.strictObject({
  outcomes: z
    .array(z.strictObject({ token: loopText().pipe(z.string().min(1)), outcome: z.enum(outcomeKinds), reason: z.string().max(500).optional() }))
    .min(1)
    .max(MAX_RECONCILE_BATCH),
});

/** One line of a reconciliation's answer. */
const ReconcileLine = z.object({
  token: z.string(),
  status: z.enum(["changed", "unchanged", "unknown-token"]).describe("changed: a transition was recorded; unchanged: the entry's outcome already was this one; unknown-token: no entry carries it (nothing recorded)."),
  outcome: z.enum(outcomeKinds),
  previousOutcome: z.enum(outcomeKinds).nullable(),
  sequence: z.int().nullable(),
});

/** `POST /v1/outcomes/reconcile`. */
export const Reconciled = z.object({ changed: z.int(), unchanged: z.int(), unknown: z.int(), results: z.array(ReconcileLine) });
export type Reconciled = z.output<typeof Reconciled>;

/**
 * `POST /v1/outcomes/reconcile`: the marketplace's corrections after the fact (a complete
 * rejected for quality, a terminate approved), from a report. Each changes the entry's current
 * outcome as a transition in the outcome feed, with its reason; nothing is overwritten, and
 * earnings are reported net of reversals. A line that repeats the current outcome records
 * nothing; a token no entry carries is reported and not recorded. Lines apply in order.
 */
export async function reconcileOutcomes(loop: LoopContext, request: RouteRequest): Promise<Reply> {
  const body = await readJsonBody(request.incoming, ReconcileBody);
  if (!body.ok) return body.reply;
  const results: z.output<typeof ReconcileLine>[] = [];
  for (const line of body.value.outcomes) {
    const result = await loop.outcomes.recordOutcome({ token: line.token, outcome: line.outcome, at: new Date(), source: "reconcile", ...(line.reason === undefined ? {} : { reason: line.reason }) });
    if (result.recorded) {
      loop.outcomeNotifier.publish(result.record.sequence);
      loop.countOutcome(line.outcome);
    }
    const status = result.unknownToken === true ? "unknown-token" : result.recorded ? "changed" : "unchanged";
    results.push({ token: line.token, status, outcome: line.outcome, previousOutcome: result.recorded ? result.record.previousOutcome : null, sequence: result.recorded ? result.record.sequence : null });
  }
  const count = (status: string) => results.filter((line) => line.status === status).length;
  return json(200, { changed: count("changed"), unchanged: count("unchanged"), unknown: count("unknown-token"), results } satisfies Reconciled);
}
