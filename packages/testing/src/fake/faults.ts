import type { OperationId } from "@sds/schemas";

/**
 * Which requests a fault applies to, and how often. With no filter a fault matches every
 * request of the service (never the `/__sandbox/` control routes); with neither `rate` nor
 * `count` it fires on every matching request until removed.
 */
export interface FaultTarget {
  /** Only requests routed to this operation (or one of these). */
  readonly operation?: OperationId | readonly OperationId[];
  /**
   * Only requests whose path (after `/api/v1`, without the query) equals this string, such as
   * `"/surveys"` or `"/survey-qualifications/42"`. Unlike `operation`, matches unknown routes too.
   */
  readonly path?: string;
  /** Only requests with this HTTP method. */
  readonly method?: string;
  /** Only requests authenticated as this supplier. */
  readonly supplierId?: number;
  /**
   * Probability (0..1) that a matching request is hit, drawn from the fake's seeded generator,
   * so a run with the same seed and the same requests fails the same ones.
   * @default 1
   */
  readonly rate?: number;
  /** Fire on the next `count` matching requests that the rate lets through, then retire. */
  readonly count?: number;
}

/**
 * Latency: the response leaves `ms` (plus up to `jitterMs`, seeded) after the request arrived,
 * as behind a real network: the fake's own processing counts toward the delay instead of adding
 * to it. The request is served on arrival and only its answer is held, so an update takes effect
 * even when the client gives up during the delay. Latency adds to other faults.
 */
export interface LatencyFault extends FaultTarget {
  readonly kind: "latency";
  /** Fixed delay in milliseconds. */
  readonly ms: number;
  /** Extra random delay in `[0, jitterMs]` milliseconds. @default 0 */
  readonly jitterMs?: number;
}

/**
 * Answers with an HTTP error status before the request reaches the service (no state changes),
 * as a gateway or an overloaded server would.
 */
export interface StatusFault extends FaultTarget {
  readonly kind: "status";
  /** The status to answer with, 400..599, such as 500, 503 or 429. */
  readonly status: number;
  /** `Retry-After` header: delay in seconds, or an HTTP date string. Sent only when set. */
  readonly retryAfter?: number | string;
  /**
   * The body: the error envelope (`hasError: true`), nothing at all, or a plain-text page like
   * a load balancer's.
   * @default "envelope"
   */
  readonly body?: "envelope" | "empty" | "text";
  /** `error.errorCode` of the envelope body. @default a code derived from the status, such as `"SERVICE_UNAVAILABLE"` */
  readonly errorCode?: string;
}

/** Answers HTTP 200 with `hasError: true` and an error code: the failure integrations must catch on a 200. */
export interface EnvelopeErrorFault extends FaultTarget {
  readonly kind: "envelope-error";
  /** @default "INTERNAL_ERROR" */
  readonly errorCode?: string;
  /** The one entry of `messages`. @default "The request could not be processed." */
  readonly message?: string;
}

/**
 * The real response, with its body made syntactically invalid JSON (a trailing comma before the
 * closing brace). The request itself is served, so an update does take effect.
 */
export interface MalformedJsonFault extends FaultTarget {
  readonly kind: "malformed-json";
}

/**
 * The real response with its body cut short (with a matching Content-Length, as a proxy that
 * truncated it would send). The request itself is served, so an update does take effect.
 */
export interface TruncatedJsonFault extends FaultTarget {
  readonly kind: "truncated-json";
  /** Fraction (0..1) of the body kept. @default 0.5 */
  readonly keep?: number;
}

/**
 * The connection dies before any response: over HTTP the socket is destroyed; in-process the
 * fetch rejects with a `TypeError("fetch failed")` whose cause has `code: "ECONNRESET"`, as
 * Node's fetch does. The request is not served.
 */
export interface ConnectionResetFault extends FaultTarget {
  readonly kind: "connection-reset";
}

/** Every kind of fault the fake can inject. */
export type FaultSpec =
  LatencyFault | StatusFault | EnvelopeErrorFault | MalformedJsonFault | TruncatedJsonFault | ConnectionResetFault;

/** The `kind` of a {@link FaultSpec}. */
export type FaultKind = FaultSpec["kind"];

/** A fault that has been added: its spec plus how often it has fired. */
export type ActiveFault = FaultSpec & {
  /** Assigned by the fake, such as `"fault-1"`. */
  readonly id: string;
  /** How many requests it has hit so far. */
  readonly fired: number;
  /** How many more requests it will hit, or `null` when it has no `count`. */
  readonly remaining: number | null;
};

/**
 * Fault injection of a fake. Faults are checked in the order they were added: every matching
 * latency fault adds its delay, then the first matching fault of any other kind decides the
 * response.
 *
 * @example
 * ```ts
 * api.faults.add({ kind: "status", status: 503, retryAfter: 2, operation: "listSurveys", count: 2 });
 * api.faults.add({ kind: "latency", ms: 50, jitterMs: 20 });
 * api.faults.clear();
 * ```
 */
export interface FaultController {
  /** Adds a fault. @throws RangeError when the spec is invalid (unknown kind, rate outside 0..1, …). */
  add(fault: FaultSpec): ActiveFault;
  /** Removes one fault; `false` when no fault has that id. */
  remove(id: string): boolean;
  /** Removes every fault. */
  clear(): void;
  /** The faults still active, in order. Faults whose `count` is used up are gone. */
  list(): readonly ActiveFault[];
}
