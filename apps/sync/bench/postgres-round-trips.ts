/**
 * Counts the round trips this process makes to PostgreSQL: every `query` of a node-postgres
 * client (pooled or not) is one round trip (the driver sends parse, bind and execute together and
 * waits for the answer), and a `BEGIN` among them is one transaction. The benchmarks run sds-sync
 * in their own process, so counting at the driver sees every statement a request causes, whichever
 * store or module sends it. Counts do not depend on the machine's load, unlike rates.
 */
import pg from "pg";

/** Round trips (statements, BEGIN and COMMIT included) and transactions counted so far. */
export interface RoundTripCount {
  readonly statements: number;
  readonly transactions: number;
}

let statements = 0;
let transactions = 0;
let installed = false;

function textOf(query: unknown): string {
  if (typeof query === "string") return query;
  if (typeof query === "object" && query !== null && "text" in query && typeof query.text === "string")
    return query.text;
  return "";
}

/** Starts counting (once per process): wraps `pg.Client.prototype.query`, which pools and clients both call. */
export function countPostgresRoundTrips(): void {
  if (installed) return;
  installed = true;
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function countedQuery(this: unknown, ...args: unknown[]): unknown {
    statements++;
    if (/^\s*BEGIN\b/i.test(textOf(args[0]))) transactions++;
    return original.apply(this, args);
  };
}

/** The counts so far: subtract two readings to count what happened between them. */
export function postgresRoundTrips(): RoundTripCount {
  return { statements, transactions };
}
