import type pg from "pg";

/**
 * Runs `work` on one pooled connection inside BEGIN … COMMIT, rolled back when it throws, and
 * rethrows what failed as it was: the store's `withStoreErrors` wrapper
 * (store-errors.ts) classifies it.
 * `_what` names the work at the call site only; it is kept so callers need not change.
 */
export async function inPostgresTransaction<T>(
  pool: pg.Pool,
  _what: string,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
