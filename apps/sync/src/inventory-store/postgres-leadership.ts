import pg from "pg";
import { bool, integer, nullable, text } from "../database/columns.ts";
import { advisoryLockKey, type AdvisoryLockKey } from "../database/advisory-lock.ts";
import { runOnPostgres } from "../database/postgres-driver.ts";
import { execute, first, one } from "../database/program.ts";
import { command, statement } from "../database/statement.ts";
import type { LeaderIdentity, Leadership } from "./store.ts";

/*
 * Leadership runs on a connection of its own (the session lock lives and dies with it); its
 * statements go the one way every statement reaches PostgreSQL (postgres-driver.ts).
 */
const PING = command<[]>("SELECT 1");
const TRY_LOCK = statement<[classId: number, objectId: number], boolean>(
  "SELECT pg_try_advisory_lock(?, ?) AS locked",
  (row) => bool(row.locked),
);
const BACKEND_PID = statement<[], number>("SELECT pg_backend_pid() AS pid", (row) => integer(row.pid));
const SET_APPLICATION_NAME = command<[name: string]>("SELECT set_config('application_name', ?, false)");
/** The session holding the lock, by its announced name and the address it connects from. */
const LOCK_HOLDER = statement<[classId: number, objectId: number], { name: string | null; address: string | null }>(
  `SELECT a.application_name AS name, host(a.client_addr) AS address
     FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND l.granted AND l.classid = ?::oid AND l.objid = ?::oid AND l.objsubid = 2`,
  (row) => ({ name: nullable(text)(row.name), address: nullable(text)(row.address) }),
);

/** Longest application_name PostgreSQL keeps (NAMEDATALEN - 1); longer ones are cut. */
const APPLICATION_NAME_LENGTH = 63;
/** How a lock connection names itself: `sds-sync|<API port>|<replica id>`, the port first so a cut takes the id's end. */
const ANNOUNCED = /^sds-sync\|(\d*)\|(.+)$/;

/**
 * Leadership by a session-level `pg_try_advisory_lock` held on a dedicated connection. When the
 * leader's process or connection dies, PostgreSQL drops the lock and the next replica's
 * {@link Leadership.acquire} takes it. `leaderPid` lets a commit check, inside its own
 * transaction, that this replica still holds the lock (fencing a leader that lost it).
 */
export class PostgresLeadership implements Leadership {
  readonly #connectionString: string;
  readonly #key: AdvisoryLockKey;
  #client: pg.Client | undefined;
  #pid: number | undefined;
  #isLeader = false;
  #applicationName = "sds-sync leadership";

  constructor(connectionString: string, schema: string) {
    this.#connectionString = connectionString;
    this.#key = advisoryLockKey(schema);
  }

  get isLeader(): boolean {
    return this.#isLeader;
  }

  /** The backend pid of the lock connection while leading, for fencing. */
  get leaderPid(): number | undefined {
    return this.#isLeader ? this.#pid : undefined;
  }

  /** The lock key, for the fencing query. */
  get key(): AdvisoryLockKey {
    return this.#key;
  }

  async acquire(): Promise<boolean> {
    try {
      const client = await this.#connection();
      if (this.#isLeader) {
        // Confirms the connection (and with it the lock) is still alive.
        await runOnPostgres(client, execute(PING));
        return true;
      }
      this.#isLeader = await runOnPostgres(client, one(TRY_LOCK, this.#key.classId, this.#key.objectId));
      return this.#isLeader;
    } catch {
      // A dead lock connection means the lock is gone with it; drop it and try afresh next time.
      this.#discard();
      return false;
    }
  }

  async announce(replicaId: string, apiUrl: string): Promise<void> {
    const port = URL.canParse(apiUrl) ? new URL(apiUrl).port : "";
    this.#applicationName = `sds-sync|${port}|${replicaId}`.slice(0, APPLICATION_NAME_LENGTH);
    // A connection opened before the announcement renames itself; a later one is opened with the name.
    const client = this.#client;
    if (client !== undefined)
      await runOnPostgres(client, execute(SET_APPLICATION_NAME, this.#applicationName)).catch(() => undefined);
  }

  /**
   * The session holding the lock, by its announced name and the address it connects from
   * (PostgreSQL shows a client's address to its own role and to pg_read_all_stats only).
   */
  async holder(): Promise<LeaderIdentity | undefined> {
    const client = this.#client;
    if (client === undefined) return undefined;
    const row = await runOnPostgres(client, first(LOCK_HOLDER, this.#key.classId, this.#key.objectId)).catch(
      () => undefined,
    );
    const announced = ANNOUNCED.exec(row?.name ?? "");
    if (!row || !announced?.[2]) return undefined;
    const [, port, id] = announced;
    const host = row.address?.includes(":") ? `[${row.address}]` : row.address;
    return { id, ...(host && port ? { address: `http://${host}:${port}` } : {}) };
  }

  async release(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#isLeader = false;
    this.#pid = undefined;
    if (client) {
      // Ending the session releases the lock even if the unlock query cannot run.
      await client.end().catch(() => undefined);
    }
  }

  async #connection(): Promise<pg.Client> {
    if (this.#client) return this.#client;
    const named = this.#applicationName;
    const client = new pg.Client({ connectionString: this.#connectionString, application_name: named });
    client.on("error", () => {
      if (this.#client === client) this.#discard();
    });
    client.on("end", () => {
      if (this.#client === client) this.#discard();
    });
    await client.connect();
    const pid = await runOnPostgres(client, one(BACKEND_PID));
    // Announced while this connection was being opened: it takes the name now.
    if (this.#applicationName !== named)
      await runOnPostgres(client, execute(SET_APPLICATION_NAME, this.#applicationName));
    this.#client = client;
    this.#pid = pid;
    return client;
  }

  #discard(): void {
    const client = this.#client;
    this.#client = undefined;
    this.#pid = undefined;
    this.#isLeader = false;
    client?.end().catch(() => undefined);
  }
}
