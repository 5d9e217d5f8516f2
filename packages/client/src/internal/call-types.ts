import type { OperationId } from "@sds/schemas";
import type { ResponsePromise } from "ky";
import type { Clock } from "../clock.ts";
import type { ValidationMode } from "../client-options.ts";
import type { ApiError } from "../errors/api-error.ts";
import type { RequestContext, SdsError } from "../errors/sds-error.ts";
import type { CallScope } from "./call-scope.ts";
import type { RawListItem } from "./list-body-reader.ts";
import type { CallSettings } from "./resolve-options.ts";
import type { ResponseParser } from "./validate-response.ts";

/*
 * The shapes a call takes inside the transport: what a resource asks for, and the states of an
 * attempt. Kept apart from the transport so its file holds the behaviour.
 */

/** One call of one operation, as a resource method describes it. */
export interface OperationCall<T> {
  readonly operation: OperationId;
  readonly pathParams?: Readonly<Record<string, string | number>>;
  /** The request body; required (and validated before sending) for operations that take one. */
  readonly body?: unknown;
  readonly parse: ResponseParser<T>;
}

/**
 * One call of an operation whose response is a JSON object holding one long list, read
 * incrementally: each element is checked and handed out as it arrives.
 */
export interface ListStreamCall<Item, Envelope> {
  readonly operation: OperationId;
  readonly pathParams?: Readonly<Record<string, string | number>>;
  /** The top-level field holding the list, such as `"Surveys"`. */
  readonly listKey: string;
  /** Checks one element; never throws for a bad element (it is reported as an item of its own). */
  readonly parseItem: (item: RawListItem, mode: ValidationMode) => Item;
  /** Checks the other top-level fields once the body is complete (the list given as `[]`, when present). */
  readonly parseEnvelope: ResponseParser<Envelope>;
  /** Called when the consumer stops the iteration before the end (`break`, `return()`), with the call's context. */
  readonly onStopped?: (request: RequestContext) => void;
}

/**
 * What one attempt came to: a response the reader accepted, whose result `settle()` builds once
 * the attempt has given its concurrency slot back (checking a whole body against its schema can
 * throw `ResponseValidationError` there), or a failure.
 */
export type AttemptOutcome<Result> = { readonly kind: "accepted"; readonly settle: () => Result } | FailedAttempt;

/**
 * How an attempt reads a 2xx response (error statuses never reach it: ky turns them into
 * `HTTPError`s with their body read). Yields batches of items as they arrive (the whole-body
 * reader yields none) and returns the attempt's outcome. `pending` is ky's promise of the
 * response, whose `text()` reads the body under the attempt timeout.
 */
export type ResponseReader<Item, Result> = (
  response: Response,
  pending: ResponsePromise,
  state: CallState,
) => AsyncGenerator<readonly Item[], AttemptOutcome<Result>, undefined>;

/** An attempt that failed, and whether another attempt could do better. */
export interface FailedAttempt {
  readonly kind: "failed";
  readonly error: SdsError;
  readonly retryable: boolean;
  readonly apiError?: ApiError;
}

/** What one call needs while it runs. */
export interface CallState {
  readonly context: { -readonly [Key in keyof RequestContext]: RequestContext[Key] };
  readonly settings: CallSettings;
  readonly scope: CallScope;
  readonly startedAt: number;
  /** Values to scrub from any outside text: the key and other credential headers of this call. */
  readonly secrets: readonly string[];
  readonly clock: Clock;
  /** Whether the current attempt handed anything to the consumer (after which no retry is possible). */
  yielded: boolean;
}
