/** The advisory lock of one schema: a fixed class id and a key derived from the schema name. */
export interface AdvisoryLockKey {
  readonly classId: number;
  readonly objectId: number;
}

/** First half of every sds-sync advisory lock key ("SDS" in ASCII), so other applications' locks don't collide. */
const SDS_LOCK_CLASS = 0x534453;

/** The lock key of a schema: replicas sharing a schema compete, different schemas do not. */
export function advisoryLockKey(schema: string): AdvisoryLockKey {
  // FNV-1a, kept positive so it reads back unchanged from pg_locks.objid (an oid).
  let hash = 0x811c9dc5;
  for (const char of schema) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193);
  }
  return { classId: SDS_LOCK_CLASS, objectId: (hash >>> 0) & 0x7fffffff };
}
