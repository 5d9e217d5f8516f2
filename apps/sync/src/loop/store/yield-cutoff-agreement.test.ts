import { createSeededRandom, recordOutcome, type YieldEvidence } from "@sds/routing";
import { describe, expect, it } from "vitest";
import { openSqliteLoopStore } from "./sqlite-loop-store.ts";
import type { OutcomeKind } from "./loop-store.ts";

/*
 * The cut-off rule has one owner, `@sds/routing` (reachesYieldCutoff): the store applies it as it
 * records outcomes, `sds-sync replay` through recordOutcome. Both must mark the same survey as
 * failing its trial at the same outcome, reversals included.
 */

const SURVEY = 41;
const kinds: readonly OutcomeKind[] = ["complete", "terminate", "overquota", "security"];

/** The library's evidence after a transition of one entry from `previous` to `next`. */
function libraryStep(
  evidence: YieldEvidence | undefined,
  previous: OutcomeKind | null,
  next: OutcomeKind,
  at: number,
  entries: number,
): YieldEvidence | undefined {
  const cutoff = { entries };
  if (previous === null) return recordOutcome(evidence, next === "complete" ? "complete" : "failure", at, cutoff);
  if (previous === "complete" && next !== "complete") return recordOutcome(evidence, "reversal", at, cutoff);
  if (previous !== "complete" && next === "complete") {
    // A failure revised into a complete: one complete more, no entry newly decided; it fails no trial.
    const current = evidence ?? { decided: 0, completes: 0 };
    return { ...current, completes: current.completes + 1 };
  }
  return evidence;
}

describe("the store's yield cut-off", () => {
  it("holds a survey out at the outcome @sds/routing's rule says, for new outcomes and for reversals", async () => {
    const random = createSeededRandom(27);
    for (let run = 0; run < 12; run++) {
      const entries = 2 + (run % 4);
      const store = await openSqliteLoopStore(":memory:", { yieldCutoffEntries: entries, speederFraction: 0 });
      try {
        let evidence: YieldEvidence | undefined;
        const current = new Map<string, OutcomeKind | null>();
        const start = Date.UTC(2026, 10, 1);
        for (let step = 0; step < 60; step++) {
          const at = start + step * 60_000;
          const reuse = current.size > 0 && random() < 0.4;
          const token = reuse ? [...current.keys()][Math.floor(random() * current.size)] : `t${run}-${step}`;
          if (token === undefined) throw new Error("no token");
          if (!current.has(token)) {
            await store.recordEntry({ token, surveyId: SURVEY, uid: "", cpi: 1, at: new Date(at) });
            current.set(token, null);
          }
          // Completes are rare, so that surveys reach the cut-off and reversals take the last complete back.
          const next = random() < 0.2 ? "complete" : (kinds[1 + Math.floor(random() * 3)] ?? "terminate");
          const previous = current.get(token) ?? null;
          if (previous === next) continue;
          await store.recordOutcome({ token, outcome: next, at: new Date(at) });
          current.set(token, next);
          evidence = libraryStep(evidence, previous, next, at, entries);
          const [counts] = await store.yieldCounts();
          expect(
            { decided: counts?.decided, completes: counts?.completes, cutoffReachedAt: counts?.cutoffReachedAt },
            `run ${run} (cut-off ${entries}), step ${step}: ${previous ?? "pending"} → ${next}`,
          ).toEqual({
            decided: evidence?.decided,
            completes: evidence?.completes,
            cutoffReachedAt: evidence?.cutoffReachedAt ?? null,
          });
        }
      } finally {
        await store.close();
      }
    }
  });
});
