/**
 * Counts the round trips this process makes to PostgreSQL: every `query` of a node-postgres
 * client (pooled or not) is one round trip (the driver sends parse, bind and execute together and
 * waits for the answer), and a `BEGIN` among them is one transaction. The benchmarks run sds-sync
 * in their own process, so counting at the driver sees every statement a request causes, whichever
 * store or module sends it. Counts do not depend on the machine's load, unlike rates; nor, much,
 * does the CPU time the PostgreSQL backends serving this process spend (read from /proc, so the
 * server must run on this machine).
 */
import { readFileSync } from "node:fs";
import pg from "pg";

/** Round trips (statements, BEGIN and COMMIT included) and transactions counted so far. */
export interface RoundTripCount {
  readonly statements: number;
  readonly transactions: number;
}

let statements = 0;
let transactions = 0;
let installed = false;
/** The local ports of this process's connections: pg_stat_activity names each backend's client port. */
const localPorts = new Set<number>();
/** Clients of {@link postgresBackendCpu}: not counted. */
const monitors = new WeakSet<object>();

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
  prototype.query = function countedQuery(this: object, ...args: unknown[]): unknown {
    if (monitors.has(this)) return original.apply(this, args);
    const port = (this as { connection?: { stream?: { localPort?: unknown } } }).connection?.stream?.localPort;
    if (typeof port === "number") localPorts.add(port);
    statements++;
    if (/^\s*BEGIN\b/i.test(textOf(args[0]))) transactions++;
    return original.apply(this, args);
  };
}

/** The counts so far: subtract two readings to count what happened between them. */
export function postgresRoundTrips(): RoundTripCount {
  return { statements, transactions };
}

/** Seconds of CPU (user and system) a process has used, from /proc; 0 once it is gone. */
function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The fields after the command name, which may hold spaces, in parentheses: utime is field 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by each PostgreSQL backend serving this process (by pid): subtract two readings. */
export async function postgresBackendCpu(databaseUrl: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  monitors.add(client);
  await client.connect();
  try {
    const backends = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[]) AND pid <> pg_backend_pid()",
      [[...localPorts]],
    );
    return new Map(backends.rows.map(({ pid }) => [pid, processCpuSeconds(pid)]));
  } finally {
    await client.end();
  }
}

/** CPU seconds the backends used between two readings (a backend that appeared meanwhile counts from 0). */
export function backendCpuBetween(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let seconds = 0;
  for (const [pid, used] of after) seconds += used - (before.get(pid) ?? 0);
  return seconds;
}
