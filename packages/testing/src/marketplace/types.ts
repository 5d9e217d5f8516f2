import type { Survey } from "@sds/schemas";
import type { FakeSupplierApi, FetchFunction, ListenOptions } from "../fake/types.ts";

/** How a simulated respondent's session ends. */
export type RespondentOutcome = "complete" | "terminate" | "overquota" | "security";

/** Options of {@link createFakeMarketplace}. */
export interface FakeMarketplaceOptions {
  /** The fake whose surveys and accounts the marketplace serves. */
  readonly api: FakeSupplierApi;
  /** Seeds the outcome of entries that have none planned. @default 1 */
  readonly seed?: number;
  /**
   * The chance (0..1) that an entry into `survey` completes, for entries with no outcome planned:
   * such an entry then ends in `complete` with that chance, else in `overquota` (one in five) or
   * `terminate`, drawn from the seed. The sandbox passes the surveys' hidden conversion
   * (`hiddenConversion`). Without it, the four outcomes are equally likely.
   */
  readonly conversion?: (survey: Survey) => number;
  /** What S2S deliveries go through. @default globalThis.fetch */
  readonly fetch?: FetchFunction;
  /** How S2S callbacks are sent, like a real sender: retried on failure, sometimes repeated. */
  readonly s2s?: {
    /** Further attempts after a failed one (network error or non-2xx). @default 3 */
    readonly retries?: number;
    /** Wait between attempts, in milliseconds. @default 20 */
    readonly retryDelayMs?: number;
    /** Extra deliveries of the same callback after the first success. @default 0 */
    readonly duplicates?: number;
    /** Send the duplicates at the same time as the first delivery rather than after it. @default false */
    readonly concurrentDuplicates?: boolean;
  };
}

/** One attempt to deliver an S2S callback. */
export interface S2sAttempt {
  /** The HTTP status, when a response came. */
  readonly status?: number;
  /** The error, when none came. */
  readonly error?: string;
}

/** One S2S callback: its signed URL and every attempt at it. */
export interface S2sDelivery {
  readonly url: string;
  readonly token: string;
  readonly outcome: RespondentOutcome;
  /** Whether this is a repeat of a callback already delivered. */
  readonly duplicate: boolean;
  readonly attempts: readonly S2sAttempt[];
  /** Whether some attempt got a 2xx. */
  readonly delivered: boolean;
}

/** What the marketplace answered one entry. */
export interface EntryResult {
  /** 302 to the redirect URL; 200 when redirects are disabled; 403 on a bad signature; 404 for an unknown or closed survey. */
  readonly status: number;
  /** The redirect target (302 only). */
  readonly location?: string;
  /** Why the entry was refused (403 and 404). */
  readonly reason?: string;
  readonly surveyId?: number;
  readonly token?: string;
  readonly uid?: string;
  readonly outcome?: RespondentOutcome;
}

/** The marketplace's entry endpoint, listening. */
export interface MarketplaceServer {
  /** Scheme, host and port, such as `http://127.0.0.1:40123`; entry links go to `${origin}/s/{surveyId}?…`. */
  readonly origin: string;
  /** The port actually bound. */
  readonly port: number;
  /** Stops this server and drops its open connections. */
  close(): Promise<void>;
}

/** The marketplace side of the respondent loop, for tests. */
export interface FakeMarketplace {
  /** Handles one entry link in-process: checks it, ends the session, fires the S2S callbacks (see {@link settle}). */
  enter(entryLink: string, options?: { readonly outcome?: RespondentOutcome }): Promise<EntryResult>;
  /** Decides the outcome of the entry that carries `token`. */
  plan(token: string, outcome: RespondentOutcome): void;
  /**
   * Tells the marketplace a respondent's true answers (`QualificationId` as a string → option
   * codes): their entries into surveys whose qualifications those answers miss are screened out
   * (`terminate`), the others drawn as before. Over HTTP, the listening marketplace takes the
   * same as `PUT {origin}/__sandbox/respondents/{uid}/answers` with `{"answers": {…}}`.
   */
  tellAnswers(uid: string, answers: Readonly<Record<string, readonly string[]>>): void;
  /**
   * Serves `GET /s/{surveyId}?…` over HTTP (127.0.0.1 and a free port unless told otherwise). The
   * entry link's host is the survey's (`survey.example.com`); the server checks the signature
   * against that original URL. Its control routes are under `/__sandbox` (see {@link tellAnswers}). A later call replaces the server that {@link respond} uses; {@link close} closes all.
   */
  listen(options?: ListenOptions): Promise<MarketplaceServer>;
  /** Sends a simulated respondent's browser to the listening server with `entryLink`'s path and query, not following the redirect. */
  respond(entryLink: string, outcome?: RespondentOutcome): Promise<EntryResult>;
  /** Waits until every S2S delivery started so far has finished (retries included). */
  settle(): Promise<void>;
  /** Every S2S delivery so far, in the order they started. */
  deliveries(): readonly S2sDelivery[];
  /** Stops the server, if listening, after the pending deliveries. */
  close(): Promise<void>;
}
