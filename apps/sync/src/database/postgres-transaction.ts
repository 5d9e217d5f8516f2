import type pg from "pg";
import { StoreError } from "../common/errors.ts";

/**
 * Runs `work` on one pooled connection inside BEGIN … COMMIT, rolled back when it throws. A
 * failure (connecting included) arrives as a StoreError naming `what`; a StoreError `work`
 * throws itself passes through unchanged.
 */
export async function inPostgresTransaction<T>(pool: pg.Pool, what: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw new StoreError(`${what} failed: ${(error as Error).message}`, { cause: error });
  }
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    if (error instanceof StoreError) throw error;
    throw new StoreError(`${what} failed: ${(error as Error).message}`, { cause: error });
  } finally {
    client.release();
  }
}
