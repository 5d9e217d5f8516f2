import { Counter, type Registry } from "prom-client";
import { outcomeKinds, type OutcomeKind } from "./store/loop-store.ts";

/** The respondent loop's metrics, registered in the service's registry. */
export interface LoopMetrics {
  /** S2S outcomes recorded by this replica (repeats excluded), by outcome. */
  readonly outcomes: Counter<"outcome">;
}

/** Registers the loop's metrics in `registry`, every series present from the start (at 0). */
export function createLoopMetrics(registry: Registry): LoopMetrics {
  const registers = [registry];
  const metrics: LoopMetrics = {
    outcomes: new Counter({ name: "sds_sync_outcomes_total", help: "S2S outcomes recorded by this replica (repeats excluded), by outcome.", labelNames: ["outcome"], registers }),
  };
  for (const outcome of outcomeKinds) metrics.outcomes.inc({ outcome } satisfies Record<"outcome", OutcomeKind>, 0);
  return metrics;
}
