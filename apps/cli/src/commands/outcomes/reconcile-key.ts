import { createHash, randomUUID } from "node:crypto";
import type { ReconcileLine } from "./reconcile-file.ts";

/**
 * The idempotency key of each batch a run of `sds outcomes reconcile` sends: one key for the
 * file, from its lines and the batch size (the same file sent again names the same batches), and
 * the batch's number after it. sds-sync applies a batch once per key: running the same file again
 * (after a failure, or by mistake) answers the batches already applied with their first answer
 * instead of recording their lines twice. `--again` draws a fresh key, to record the lines anew.
 */
export interface ReconcileKeys {
  /** The file's key: a sha256 of its content, or random with `--again`. */
  readonly fileKey: string;
  /** Its first 12 characters, as stderr names it. */
  readonly short: string;
  /** Whether the key comes from the file's content (false: `--again`). */
  readonly derived: boolean;
  /** The key of batch `index` (0-based). */
  batchKey(index: number): string;
}

/** The keys of a run from the file's {@link ReconcileDigest}, or random (`--again`) when there is none. */
export function reconcileKeys(digest: string | undefined): ReconcileKeys {
  const fileKey = digest ?? randomUUID().replaceAll("-", "");
  return {
    fileKey,
    short: fileKey.slice(0, 12),
    derived: digest !== undefined,
    batchKey: (index) => `sds-reconcile:${fileKey}:${index + 1}`,
  };
}

/** The sha256 of a file's content, fed a line at a time as the file is read. */
export interface ReconcileDigest {
  readonly add: (line: ReconcileLine) => void;
  /** The hex digest; call once, after the last line. */
  digest(): string;
}

/**
 * Digests the lines as they apply (token, outcome, reason, in order) and the batch size: not
 * the file's spacing, quoting or case. The text hashed is, piece by piece, the JSON
 * `{"size":N,"lines":[[token,outcome,reason|null],…]}` the whole-file reading hashed, so a
 * file keeps the key an earlier version of sds derived for it.
 */
export function reconcileDigest(size: number): ReconcileDigest {
  const hash = createHash("sha256").update(`{"size":${JSON.stringify(size)},"lines":[`);
  let first = true;
  return {
    add(line) {
      hash.update((first ? "" : ",") + JSON.stringify([line.token, line.outcome, line.reason ?? null]));
      first = false;
    },
    digest: () => hash.update("]}").digest("hex"),
  };
}
