import type { OutcomeKind, LoopStore } from "./store/loop-store.ts";
import type { ChangeNotifier } from "../feed/change-notifier.ts";
import type { AccountSettings } from "./account-settings.ts";
import type { LiveMatcher } from "./live-matcher.ts";
import type { RoutingPolicy } from "@sds/routing";
import type { ReceiverRefusals } from "./receiver-refusals.ts";
import type { RoutingFacts } from "./routing-facts.ts";

/** What the respondent loop's routes read from and write to. */
export interface LoopContext {
  readonly liveMatcher: LiveMatcher;
  readonly account: AccountSettings;
  /** The loop store: entries, outcomes, conversion counts and the routing data the leader fetched. */
  readonly store: LoopStore;
  /**
   * Wakes long-polling readers of `GET /v1/outcomes?wait=`: the change feed's mechanism, over
   * the outcome feed's sequence (published by this replica's receiver, polled for the others').
   */
  readonly outcomeNotifier: ChangeNotifier;
  /** S2S calls the receiver refused, by reason. */
  readonly refusals: ReceiverRefusals;
  /** What an operator should hear of while the loop still works (such as outcomes accepted unsigned): `/readyz`, the status page. */
  readonly warnings: () => readonly string[];
  /** Counts an outcome this replica recorded (`sds_sync_outcomes_total{outcome}`). */
  readonly countOutcome: (outcome: OutcomeKind) => void;
  /** What fills each placeholder of a SurveyUrl (`[#name#]`, `[%NAME%]`): the token or the uid. */
  readonly placeholders: Readonly<Record<string, "token" | "uid">>;
  /** `SYNC_MAX_CPI`: the highest Cpi taken for a price (money.ts `parseCpi`). */
  readonly maxCpi: number;
  /** Survey groups, re-contact lists, unroutable surveys and yield evidence, as the matcher holds them. */
  readonly facts: RoutingFacts;
  /** The respondent rules, applied by the matcher and again, atomically, when an entry link is issued. */
  readonly policy: RoutingPolicy;
  /** The query parameter carrying the transaction token on S2S calls. @default "vq_token" */
  readonly tokenParameter: string;
  /**
   * The absolute URL the marketplace calls the receiver at, up to the path the receiver sees
   * (`SYNC_OUTCOMES_PUBLIC_URL`, such as `https://panel.example/sds`); when unset, the receiver
   * listener's own origin (from the configuration, never the request's `Host` header).
   */
  readonly publicUrl: string | undefined;
}
