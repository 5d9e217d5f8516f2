import type { SupplierAccount } from "@sds/schemas";
import type { Logger } from "pino";
import { describeUpstreamFailure, upstreamFailureFields } from "../upstream/upstream-failure.ts";

/** The account's link encryption, as the loop needs it. Holds secrets (`EncryptionKey`): never log it. */
export type LinkEncryption = Pick<SupplierAccount, "IncomingEncryption" | "OutgoingEncryption">;

/** Options of {@link AccountSettings}. */
export interface AccountSettingsOptions {
  /** Get Supplier Details (the client's `account.get`), resolving to the account. */
  readonly fetchAccount: (signal: AbortSignal) => Promise<SupplierAccount>;
  readonly logger: Logger;
}

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
  #fetchedAt: Date | undefined;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | undefined;
  readonly #abort = new AbortController();

  constructor(options: AccountSettingsOptions) {
    this.#options = options;
  }

  /** The encryption settings last read, `undefined` before the first successful read. */
  get current(): LinkEncryption | undefined {
    return this.#current;
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
          this.#current = { IncomingEncryption: account.IncomingEncryption, OutgoingEncryption: account.OutgoingEncryption };
          this.#fetchedAt = new Date();
        },
        (error: unknown) => {
          if (!this.#abort.signal.aborted) this.#options.logger.warn(upstreamFailureFields(error), `the account could not be read: ${describeUpstreamFailure(error)}; link encryption settings unchanged`);
        },
      )
      .finally(() => {
        this.#inFlight = undefined;
      });
    return this.#inFlight;
  }

  /** Reads now, then every `everyMs`. */
  start(everyMs: number): Promise<void> {
    this.#timer = setInterval(() => void this.refresh(), everyMs);
    this.#timer.unref();
    return this.refresh();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#abort.abort();
  }
}
