import pg from "pg";
import { advisoryLockKey, type AdvisoryLockKey } from "../database/advisory-lock.ts";
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
        await client.query("SELECT 1");
        return true;
      }
      const result = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS locked", [
        this.#key.classId,
        this.#key.objectId,
      ]);
      this.#isLeader = result.rows[0]?.locked === true;
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
    const pid = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    this.#client = client;
    this.#pid = pid.rows[0]?.pid;
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
