import type { SignatureScheme, SignatureSchemeOptions } from "@sds/routing";
import type { RespondentOutcome } from "./types.ts";

/** Options of {@link createHostileMarketplace}. */
export interface HostileMarketplaceOptions {
  /**
   * Where the receiver's outcome routes hang, as given to `sds account set-s2s --receiver`:
   * callbacks go to `{receiverUrl}/v1/outcomes/{outcome}?vq_token=TOKEN`. http or https.
   */
  readonly receiverUrl: string;
  /**
   * How the genuine marketplace signs its callbacks: the account's `OutgoingEncryption` as
   * `encryptionSigning(account.OutgoingEncryption)` of `@sds/routing` returns it. Without it,
   * genuine callbacks are unsigned (an account with `OutgoingEncryption` disabled) and forged
   * ones are signed with a key of the attacker's.
   */
  readonly signing?: HostileMarketplaceSigning;
  /** The query parameter that carries the token. @default "vq_token" */
  readonly tokenParameter?: string;
  /** Gives up on one request after this long; the attempt then carries `error`. @default 5000 */
  readonly timeoutMs?: number;
}

/** A key and the scheme it signs with (the shape of `@sds/routing`'s `EncryptionSigning`). */
export interface HostileMarketplaceSigning {
  /** The `EncryptionKey`. A secret: never in an attempt's record. */
  readonly key: string;
  /** @default the Lucid/Cint scheme of `@sds/routing` */
  readonly scheme?: SignatureSchemeOptions | SignatureScheme;
}

/** One request the hostile marketplace can send, byte for byte. */
export interface HostileRequest {
  readonly method: "GET" | "POST" | "HEAD";
  /** The request target, exactly as it goes on the request line (`/v1/outcomes/complete?vq_token=…`). */
  readonly target: string;
  /** The `Host` header. @default the receiver's host and port */
  readonly host?: string;
  /** Other headers, sent as given. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A body (POST). */
  readonly body?: string;
}

/** What the receiver answered. */
export interface HostileResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text (at most 64 KiB kept). */
  readonly body: string;
}

/** One attempt: what was sent, and what came back. */
export interface HostileCallback {
  /** Which variant of the attack, such as `"other-token"`; unique within one method's answer. */
  readonly variant: string;
  /** What the variant does and what a sound receiver answers, in a sentence. */
  readonly description: string;
  /** What was sent: the request, with the `Host` header it carried and the origin it was sent to. */
  readonly request: HostileRequest & { readonly host: string; readonly origin: string };
  /** The receiver's answer; `undefined` when none came (see `error`). */
  readonly response: HostileResponse | undefined;
  /** Why no answer came (connection refused or reset, timeout). */
  readonly error: string | undefined;
  /** Whether the receiver refused it with a 4xx. A 5xx is not a refusal: the receiver failed. */
  readonly refused: boolean;
}

/** The token and outcome an attack is about. */
export interface CallbackTarget {
  /** The entry's token (an entry link issued by the receiver's system, unless the attack says otherwise). */
  readonly token: string;
  /** @default "complete" */
  readonly outcome?: RespondentOutcome;
}

/** What a replay turns a genuine callback into. */
export interface ReplayTarget extends CallbackTarget {
  /** The token the replay claims instead (another entry of the same system, ideally one that exists). */
  readonly otherToken: string;
  /** The outcome the replay claims instead. @default "terminate", or "complete" when `outcome` is "terminate" */
  readonly otherOutcome?: RespondentOutcome;
}

/**
 * A marketplace that attacks an S2S outcome receiver (sds-sync's `GET|POST /v1/outcomes/{outcome}`).
 * Every method sends its requests one after the other and resolves to what was sent and what
 * came back, so a test asserts the receiver refused each (and recorded nothing). See
 * {@link createHostileMarketplace}.
 */
export interface HostileMarketplace {
  /** The callback URL of an outcome and token (the token percent-encoded), unsigned. */
  callbackUrl(outcome: RespondentOutcome, token: string): string;
  /** `url` signed as the genuine marketplace signs (unchanged without `signing`). */
  sign(url: string): string;
  /** Sends one request as given: for an attack this list lacks. */
  send(request: HostileRequest, variant?: string, description?: string): Promise<HostileCallback>;
  /** The genuine callback, as the real marketplace sends it: the baseline a receiver accepts. */
  genuineCallback(target: CallbackTarget): Promise<HostileCallback>;
  /** Bad or missing signatures: every variant must be refused (403) and recorded nowhere. */
  forgedCallbacks(target: CallbackTarget): Promise<readonly HostileCallback[]>;
  /**
   * A validly signed callback of one token, outcome, host or path sent as another: other
   * token, other outcome path, signed for another host, another `Host` header, the
   * `Host: <signed URL without scheme>#` trick, POST instead of GET with a body that claims the
   * other token, the path percent-encoded. The first variant, `exact`, is the genuine callback
   * sent again (a sound receiver answers it as a duplicate, not an error).
   */
  replayedCallbacks(target: ReplayTarget): Promise<readonly HostileCallback[]>;
  /** A validly signed outcome for a token no entry link was issued for (`token` defaults to a fresh `never-issued-…`). */
  callbackBeforeEntry(target?: Partial<CallbackTarget>): Promise<HostileCallback>;
  /** Validly signed outcomes for one token, one after the other. @default sequence complete → terminate → complete */
  outcomeFlips(token: string, sequence?: readonly RespondentOutcome[]): Promise<readonly HostileCallback[]>;
  /**
   * A validly signed callback sent the way a browser would if the URL leaked to a page: an
   * `<img>`, a no-CORS `fetch` POST, a form POST, a top-level navigation, an opaque (`null`)
   * origin; each with the `Origin`, `Referer` and `Sec-Fetch-*` headers browsers add. S2S is
   * server to server: a receiver that refuses browser requests refuses these.
   */
  browserCallbacks(target: CallbackTarget): Promise<readonly HostileCallback[]>;
  /** A validly signed callback whose token is `length` characters long. @default length 8000 */
  oversizedToken(options?: {
    readonly length?: number;
    readonly outcome?: RespondentOutcome;
  }): Promise<HostileCallback>;
  /**
   * Validly signed callbacks whose token holds what no token should: a NUL byte (`%00`), lone
   * surrogates (`%ED%A0%80`, `%ED%B0%80`: UTF-8 of U+D800 and U+DC00, which no decoder
   * accepts), invalid UTF-8 (`%FF`), a cut escape (`%E2%82`, `%`), CR LF, an empty token, no
   * token, the token twice.
   */
  malformedTokens(outcome?: RespondentOutcome): Promise<readonly HostileCallback[]>;
}
