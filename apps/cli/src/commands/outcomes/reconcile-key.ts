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

/** The keys of a run over `lines` in batches of `size`; random with `again`. */
export function reconcileKeys(lines: readonly ReconcileLine[], size: number, again: boolean): ReconcileKeys {
  const fileKey = again ? randomUUID().replaceAll("-", "") : contentKey(lines, size);
  return {
    fileKey,
    short: fileKey.slice(0, 12),
    derived: !again,
    batchKey: (index) => `sds-reconcile:${fileKey}:${index + 1}`,
  };
}

/** The lines as they apply (token, outcome, reason, in order) and the batch size: not the file's spacing, quoting or case. */
function contentKey(lines: readonly ReconcileLine[], size: number): string {
  const canonical = JSON.stringify({
    size,
    lines: lines.map((line) => [line.token, line.outcome, line.reason ?? null]),
  });
  return createHash("sha256").update(canonical).digest("hex");
}
