import { json, text } from "../../database/columns.ts";
import { execute, first, type Program } from "../../database/program.ts";
import { command, statement } from "../../database/statement.ts";
import type { PruneBatchOutcome } from "../../database/retention.ts";
import type { LoopStore } from "./loop-store.ts";

/*
 * Idempotency keys of batch requests (`Idempotency-Key`, `loop_idempotency_keys`): the first
 * request with a key records its answer in the transaction that applies it; a repeat with the
 * same body answers that answer and applies nothing. The key's lock is taken first and held to
 * the end of the transaction, so a concurrent request with the same key (on any replica) waits
 * for the first to commit, then finds its answer: never two applications.
 */

/**
 * How long a key is kept unless `SYNC_IDEMPOTENCY_RETENTION_SECONDS` says otherwise: a repeat
 * within it answers the stored answer; past it, the key is pruned and a repeat applies again.
 */
export const DEFAULT_IDEMPOTENCY_RETENTION_SECONDS = 7 * 24 * 3600;

/** One request's key, in the scope of its route, with the fingerprint of its body. */
export interface IdempotentRequest {
  /** The route the key belongs to (`reconcile`): keys of different routes never meet. */
  readonly scope: string;
  readonly key: string;
  /** A digest of the body as it applies (its canonical form), so a repeat is told from another request under the same key. */
  readonly fingerprint: string;
}

/** What a key already holds: nothing (apply the request), the answer to replay, or another body's answer. */
export type IdempotencyClaim =
  { readonly kind: "new" } | { readonly kind: "replay"; readonly answer: unknown } | { readonly kind: "reused" };

/** The key's advisory lock (its scope in the locked text, apart from tokens'), where writers overlap. */
const LOCK_KEY = command<[lockedText: string]>((dialect) => {
  const locks = dialect.advisoryLocks([{ boundText: true }]);
  return locks === null ? null : `SELECT ${locks}`;
});
const STORED = statement<[scope: string, key: string], { readonly fingerprint: string; readonly answer: unknown }>(
  "SELECT fingerprint, answer FROM loop_idempotency_keys WHERE scope = ? AND idempotency_key = ?",
  (row) => ({
    fingerprint: text(row.fingerprint),
    answer: json(row.answer),
  }),
);
const STORE = command<[scope: string, key: string, fingerprint: string, answer: string, createdAt: string]>(
  "INSERT INTO loop_idempotency_keys (scope, idempotency_key, fingerprint, answer, created_at) VALUES (?, ?, ?, ?, ?)",
);
const PRUNE = command<[before: string, limit: number]>(
  "DELETE FROM loop_idempotency_keys WHERE (scope, idempotency_key) IN (SELECT scope, idempotency_key FROM loop_idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?)",
);

/**
 * Locks `request`'s key until the transaction ends and reads what it recorded. Call it first in
 * the write program that applies the request: a concurrent request with the same key waits here.
 */
export function* claimIdempotencyKey(request: IdempotentRequest): Program<IdempotencyClaim> {
  yield* execute(LOCK_KEY, `idempotency:${request.scope}:${request.key}`);
  const stored = yield* first(STORED, request.scope, request.key);
  if (stored === undefined) return { kind: "new" };
  return stored.fingerprint === request.fingerprint ? { kind: "replay", answer: stored.answer } : { kind: "reused" };
}

/** Records `answer` under `request`'s key, in the transaction that applied the request (after {@link claimIdempotencyKey} found it new). */
export function* recordIdempotentAnswer(request: IdempotentRequest, answer: unknown, at: Date): Program<void> {
  yield* execute(STORE, request.scope, request.key, request.fingerprint, JSON.stringify(answer), at.toISOString());
}

/** Deletes at most `limit` keys recorded before `before`, oldest first; how many it deleted. */
export function* pruneIdempotencyKeys(before: Date, limit: number): Program<number> {
  return yield* execute(PRUNE, before.toISOString(), limit);
}

/** What the shared pruner (retention/pruner.ts) deletes of the keys, and when: those recorded `retentionMs` ago. */
export function idempotencyKeyRetention(
  store: LoopStore,
  retentionMs: number,
): {
  readonly store: LoopStore;
  readonly retentionMs: number;
  pruneBatch(before: Date, limit: number): Promise<PruneBatchOutcome>;
} {
  return {
    store,
    retentionMs,
    async pruneBatch(before, limit) {
      const deleted = await store.write("pruning idempotency keys", pruneIdempotencyKeys(before, limit));
      return { deleted, more: deleted === limit, deferred: false };
    },
  };
}
