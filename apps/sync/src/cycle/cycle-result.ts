import { isRateLimitError } from "@sds/client";
import { StoreError, SyncError } from "../common/errors.ts";
import type { RunCounts } from "../inventory-store/store.ts";
import type { FetchFailure } from "./fetch-children.ts";

/*
 * How a cycle ends: its result, the errors that stop it, and how a failure is told and classed.
 * Kept apart from the cycle's phases (`run-cycle.ts`), which the HTTP routes and the engine need
 * not load to read a result.
 */

/**
 * Why a cycle failed: `shutdown` (the process was asked to stop: not a fault), `deadline` (it
 * ran past `SYNC_CYCLE_TIMEOUT`), `store` (the store refused a write or the commit), `upstream`
 * (the live list failed, was refused, or anything else).
 */
export type CycleFailureKind = "shutdown" | "deadline" | "store" | "upstream";

/** The cycle was abandoned because the process is shutting down. */
export class CycleAbortedError extends SyncError {
  override name = "CycleAbortedError" as const;
}

/** The list repeated ids that were not set aside: the cycle starts over with them set aside (never recorded as such). */
export class RepeatedIdsError extends SyncError {
  override name = "RepeatedIdsError" as const;
  readonly ids: readonly number[];
  constructor(ids: readonly number[]) {
    super(`the live list repeated survey ids ${ids.slice(0, 10).join(", ")}${ids.length > 10 ? ", …" : ""}`);
    this.ids = ids;
  }
}

/** The cycle ran past its deadline (`SYNC_CYCLE_TIMEOUT`). */
export class CycleDeadlineError extends SyncError {
  override name = "CycleDeadlineError" as const;
  /** The deadline, in ms. */
  readonly deadlineMs: number;
  constructor(deadlineMs: number) {
    super(
      `deadline: the cycle did not finish within ${deadlineMs / 1000} s (SYNC_CYCLE_TIMEOUT); nothing of it was kept`,
    );
    this.deadlineMs = deadlineMs;
  }
}

/** How a cycle ended. */
export interface CycleResult {
  readonly status: "succeeded" | "failed";
  readonly runId: number | undefined;
  readonly counts: RunCounts;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly error: string | null;
  /** Why it failed; null when it succeeded. */
  readonly failure: CycleFailureKind | null;
  /** The error that ended a failed cycle, for the engine to word its log line (such as a refused API key); never sent over HTTP. */
  readonly cause?: Error;
  /** The longest wait an upstream 429 asked for during the cycle (`Retry-After`, in ms); null when none did. */
  readonly retryAfterMs: number | null;
  readonly firstSequence: number | null;
  readonly lastSequence: number | null;
  readonly fetchFailures: readonly FetchFailure[];
}

/** The longest `Retry-After` among errors that are the upstream's 429s, in ms; null when there is none. */
export function retryAfterOf(errors: readonly unknown[]): number | null {
  let longest: number | null = null;
  for (const error of errors) {
    if (isRateLimitError(error) && error.retryAfter !== undefined) longest = Math.max(longest ?? 0, error.retryAfter);
  }
  return longest;
}

/** What kind of failure ended a cycle, from its first cause. */
export function failureKind(cause: Error): CycleFailureKind {
  if (cause instanceof CycleAbortedError) return "shutdown";
  if (cause instanceof CycleDeadlineError) return "deadline";
  if (cause instanceof StoreError) return "store";
  return "upstream";
}

/** `value` as an Error (a thrown non-Error wrapped, its text as the message). */
export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/** A one-line description of an error for run records and logs; never includes request headers. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
