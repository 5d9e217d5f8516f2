import { Counter, Gauge, type Registry } from "prom-client";
import type { EncryptionVerdicts } from "./account-settings.ts";
import { outcomeKinds, type OutcomeKind } from "./store/loop-store.ts";

/** The respondent loop's metrics, registered in the service's registry. */
export interface LoopMetrics {
  /** S2S outcomes recorded by this replica (repeats excluded), by outcome. */
  readonly outcomes: Counter<"outcome">;
  /** Sets the account gauges from the verdicts of the last account read. */
  recordVerdicts(verdicts: EncryptionVerdicts): void;
}

/** How many surveys' routing data (groups, re-contact list, stats) could not be read at their last fetch, by kind. */
export type RoutingDataUnavailable = () => Readonly<Record<"groups" | "recontact" | "stats", number>>;

/** How many live surveys the service cannot route to for anyone, by reason: a Cpi that is not a price, a URL that cannot make an entry link. */
export type UnroutableSurveys = () => Readonly<Record<"price" | "url", number>>;

/**
 * Registers the loop's metrics in `registry`, every series present from the start (at 0).
 * `routingDataUnavailable` and `unroutableSurveys` are read at each scrape.
 */
export function createLoopMetrics(
  registry: Registry,
  routingDataUnavailable: RoutingDataUnavailable,
  unroutableSurveys: UnroutableSurveys,
): LoopMetrics {
  const registers = [registry];
  new Gauge({
    name: "sds_sync_surveys_unroutable",
    help: "Live surveys held out of routing for everyone, by reason: price (a Cpi that is not a price: negative, more than 6 decimals, above 10000; no entry or sum ever carries it) or url (a SurveyUrl that cannot make an entry link).",
    labelNames: ["reason"],
    registers,
    collect() {
      for (const [reason, surveys] of Object.entries(unroutableSurveys())) this.set({ reason }, surveys);
    },
  });
  new Gauge({
    name: "sds_sync_routing_data_unavailable",
    help: "Surveys whose survey groups, re-contact list or stats could not be read at their last fetch (a 404 or an unreadable body), by kind: groups are then ignored (or the survey excluded, SYNC_MISSING_GROUPS=exclude), re-contact studies kept out, Ir used as the yield prior.",
    labelNames: ["kind"],
    registers,
    collect() {
      for (const [kind, surveys] of Object.entries(routingDataUnavailable())) this.set({ kind }, surveys);
    },
  });
  const unsigned = new Gauge({
    name: "sds_sync_outcomes_unsigned",
    help: "1 while outcomes are accepted unsigned (the account's OutgoingEncryption is off).",
    registers,
  });
  const misconfigured = new Gauge({
    name: "sds_sync_encryption_misconfigured",
    help: "1 while the account's encryption setting cannot be used (enabled with no key, unknown algorithm), by direction; the calls that need it get 503.",
    labelNames: ["direction"],
    registers,
  });
  const metrics: LoopMetrics = {
    outcomes: new Counter({
      name: "sds_sync_outcomes_total",
      help: "S2S outcome transitions recorded by this replica (repeats excluded), by outcome.",
      labelNames: ["outcome"],
      registers,
    }),
    recordVerdicts(verdicts) {
      unsigned.set(verdicts.outgoing.kind === "off" ? 1 : 0);
      misconfigured.set({ direction: "incoming" }, verdicts.incoming.kind === "misconfigured" ? 1 : 0);
      misconfigured.set({ direction: "outgoing" }, verdicts.outgoing.kind === "misconfigured" ? 1 : 0);
    },
  };
  for (const outcome of outcomeKinds) metrics.outcomes.inc({ outcome } satisfies Record<"outcome", OutcomeKind>, 0);
  return metrics;
}
