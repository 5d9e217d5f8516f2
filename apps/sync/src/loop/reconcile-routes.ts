import { ReconcileBody, type Reconciled, type ReconcileLine } from "@sds/sync-client";
import type { z } from "zod";
import { MAX_BATCH_BODY_BYTES, readJsonBody } from "../http/request-body.ts";
import { json, type Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import type { LoopContext } from "./loop-context.ts";

type ReconcileRequest = z.output<typeof ReconcileBody>["outcomes"];

/**
 * `POST /v1/outcomes/reconcile`: the marketplace's corrections after the fact (a complete
 * rejected for quality, a terminate approved), from a report. Each changes the entry's current
 * outcome as a transition in the outcome feed, with its reason; nothing is overwritten, and
 * earnings are reported net of reversals. A line that repeats the current outcome records
 * nothing; a token no entry carries is reported and not recorded. Lines apply in order. With
 * `dryRun`, nothing is recorded and each line says what it would do.
 */
export async function reconcileOutcomes(loop: LoopContext, request: RouteRequest): Promise<Reply> {
  const body = await readJsonBody(request.incoming, ReconcileBody, MAX_BATCH_BODY_BYTES);
  if (!body.ok) return body.reply;
  const dryRun = body.value.dryRun === true;
  const results = dryRun ? await previewLines(loop, body.value.outcomes) : await recordLines(loop, body.value.outcomes);
  const count = (status: ReconcileLine["status"]) => results.filter((line) => line.status === status).length;
  return json(200, {
    dryRun,
    changed: count("changed"),
    unchanged: count("unchanged"),
    unknown: count("unknown-token"),
    results,
  } satisfies Reconciled);
}

/** Records each line as a transition, in order. */
async function recordLines(loop: LoopContext, lines: ReconcileRequest): Promise<ReconcileLine[]> {
  const results: ReconcileLine[] = [];
  for (const line of lines) {
    const result = await loop.store.recordOutcome({
      token: line.token,
      outcome: line.outcome,
      at: new Date(),
      source: "reconcile",
      ...(line.reason === undefined ? {} : { reason: line.reason }),
    });
    if (result.recorded) {
      loop.outcomeNotifier.publish(result.record.sequence);
      loop.countOutcome(line.outcome);
    }
    const status = result.unknownToken === true ? "unknown-token" : result.recorded ? "changed" : "unchanged";
    results.push({
      token: line.token,
      status,
      outcome: line.outcome,
      previousOutcome: result.recorded ? result.record.previousOutcome : null,
      sequence: result.recorded ? result.record.sequence : null,
    });
  }
  return results;
}

/**
 * What {@link recordLines} would answer, from one read of the tokens' current outcomes and the
 * same rules (recordOutcome's): each line moves its token's outcome for the lines after it.
 * Outcomes arriving meanwhile are not foreseen: a preview, not a reservation.
 */
async function previewLines(loop: LoopContext, lines: ReconcileRequest): Promise<ReconcileLine[]> {
  const current = await loop.store.currentOutcomes(lines.map((line) => line.token));
  return lines.map((line): ReconcileLine => {
    const base = { token: line.token, outcome: line.outcome, sequence: null };
    if (!current.has(line.token)) return { ...base, status: "unknown-token", previousOutcome: null };
    const previous = current.get(line.token) ?? null;
    if (previous === line.outcome) return { ...base, status: "unchanged", previousOutcome: null };
    current.set(line.token, line.outcome);
    return { ...base, status: "changed", previousOutcome: previous };
  });
}
