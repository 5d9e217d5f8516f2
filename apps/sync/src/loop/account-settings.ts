import type { SupplierAccount } from "@sds/schemas";
import type { Logger } from "pino";
import { LogThrottle } from "../common/log-throttle.ts";
import { describeUpstreamFailure, upstreamFailureFields } from "../upstream/upstream-failure.ts";
import { encryptionVerdict, type EncryptionVerdict } from "./encryption-verdict.ts";

/** The account's link encryption, as the loop needs it. Holds secrets (`EncryptionKey`): never log it. */
export type LinkEncryption = Pick<SupplierAccount, "IncomingEncryption" | "OutgoingEncryption">;

/** The account's two link encryptions, decided (see encryption-verdict.ts). */
export interface EncryptionVerdicts {
  /** Signing entry links. */
  readonly incoming: EncryptionVerdict;
  /** Verifying S2S outcomes. */
  readonly outgoing: EncryptionVerdict;
}

/** Options of {@link AccountSettings}. */
export interface AccountSettingsOptions {
  /** Get Supplier Details (the client's `account.get`), resolving to the account. */
  readonly fetchAccount: (signal: AbortSignal) => Promise<SupplierAccount>;
  readonly logger: Logger;
  /** Called after every successful read with the verdicts (gauges). */
  readonly onRead?: (verdicts: EncryptionVerdicts) => void;
  /** The clock of the warnings' rate limit. @default Date.now */
  readonly now?: () => number;
}

/** How often, at most, the log repeats that outcomes are accepted unsigned (the account is read about twice a cycle). */
export const UNSIGNED_WARNING_EVERY_MS = 3_600_000;

/**
 * The account's `IncomingEncryption` (to sign entry links) and `OutgoingEncryption` (to verify
 * S2S outcomes), re-read from the account after every cycle and on a timer (followers run no
 * cycle), kept in memory only: the keys never reach the store or a log. Until the first read
 * succeeds, {@link AccountSettings.current} is `undefined` and the receiver refuses outcomes
 * with a 503 (the sender retries) rather than guess whether they must be signed.
 */
export class AccountSettings {
  readonly #options: AccountSettingsOptions;
  #current: LinkEncryption | undefined;
  #verdicts: EncryptionVerdicts | undefined;
  #fetchedAt: Date | undefined;
  #s2sEnabled: boolean | undefined;
  #inFlight: Promise<void> | undefined;
  readonly #abort = new AbortController();
  readonly #unsignedWarnings: LogThrottle;

  constructor(options: AccountSettingsOptions) {
    this.#options = options;
    this.#unsignedWarnings = new LogThrottle(UNSIGNED_WARNING_EVERY_MS, options.now);
  }

  /** The encryption settings last read, `undefined` before the first successful read. */
  get current(): LinkEncryption | undefined {
    return this.#current;
  }

  /** What the settings last read mean for signing links and verifying outcomes, `undefined` before the first read. */
  get verdicts(): EncryptionVerdicts | undefined {
    return this.#verdicts;
  }

  /** Whether the account's S2S URLs are enabled (a signed return then records no outcome), `undefined` before the first read. */
  get s2sEnabled(): boolean | undefined {
    return this.#s2sEnabled;
  }

  /** When the settings were last read successfully. */
  get fetchedAt(): Date | undefined {
    return this.#fetchedAt;
  }

  /** Reads the account now; a failure keeps the last good settings (logged). */
  refresh(): Promise<void> {
    this.#inFlight ??= this.#options
      .fetchAccount(this.#abort.signal)
      .then(
        (account) => {
          this.#current = {
            IncomingEncryption: account.IncomingEncryption,
            OutgoingEncryption: account.OutgoingEncryption,
          };
          this.#fetchedAt = new Date();
          this.#s2sEnabled = account.S2SUrls.Enabled;
          const verdicts = {
            incoming: encryptionVerdict(account.IncomingEncryption, "IncomingEncryption"),
            outgoing: encryptionVerdict(account.OutgoingEncryption, "OutgoingEncryption"),
          };
          this.#verdicts = verdicts;
          this.#warnAbout(verdicts);
          this.#options.onRead?.(verdicts);
        },
        (error: unknown) => {
          if (!this.#abort.signal.aborted)
            this.#options.logger.warn(
              upstreamFailureFields(error),
              `the account could not be read: ${describeUpstreamFailure(error)}; link encryption settings unchanged`,
            );
        },
      )
      .finally(() => {
        this.#inFlight = undefined;
      });
    return this.#inFlight;
  }

  /**
   * Warns while outcomes are accepted unsigned (at the first read, then at most once an hour: the
   * state is on `/readyz`, the status page and `sds_sync_outcomes_unsigned` all the while), and at
   * every read while an encryption setting cannot be used.
   */
  #warnAbout(verdicts: EncryptionVerdicts): void {
    const { logger } = this.#options;
    if (verdicts.outgoing.kind !== "off") this.#unsignedWarnings.reset();
    else if (this.#unsignedWarnings.admit())
      logger.warn(
        "outcomes are accepted unsigned: the account's OutgoingEncryption is off, so anyone who can reach the receiver can record an outcome",
      );
    for (const verdict of [verdicts.incoming, verdicts.outgoing]) {
      if (verdict.kind === "misconfigured")
        logger.warn(
          { problem: verdict.problem },
          `account misconfigured: ${verdict.problem}; the calls that need it are answered 503 until it is fixed`,
        );
    }
  }

  /** Ends a read under way; later reads fail at once (the service is stopping). */
  stop(): void {
    this.#abort.abort();
  }
}
