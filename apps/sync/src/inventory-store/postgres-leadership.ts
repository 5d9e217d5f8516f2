import pg from "pg";
import { bool, integer } from "../database/columns.ts";
import { advisoryLockKey, type AdvisoryLockKey } from "../database/advisory-lock.ts";
import { runOnPostgres } from "../database/postgres-driver.ts";
import { execute, one } from "../database/program.ts";
import { command, statement } from "../database/statement.ts";

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
import type { Leadership } from "./store.ts";

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
    const client = new pg.Client({ connectionString: this.#connectionString, application_name: "sds-sync leadership" });
    client.on("error", () => {
      if (this.#client === client) this.#discard();
    });
    client.on("end", () => {
      if (this.#client === client) this.#discard();
    });
    await client.connect();
    const pid = await runOnPostgres(client, one(BACKEND_PID));
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
