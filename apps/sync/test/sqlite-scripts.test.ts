import { execFile } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPostgresLoopStore } from "../src/loop/store/postgres-loop-store.ts";
import { loopDatabasePath, openSqliteLoopStore } from "../src/loop/store/sqlite-loop-store.ts";
import type { LoopStore } from "../src/loop/store/loop-store.ts";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";

/*
 * The deploy scripts' edges, without a service: how they name the loop file, a store from
 * before the loop, and each refusal (exit 1, nothing changed) and usage error (exit 2). The
 * round trips through a running service are in backup-restore.system.test.ts.
 */

const run = promisify(execFile);
const script = (name: string) => fileURLToPath(new URL(`../deploy/${name}`, import.meta.url));
/** Runs a deploy script on this test's Node; resolves with its exit code and output whatever the code. */
async function runScript(name: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script(name), ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const postgresUp = await postgresAvailable();

/** A store (inventory) file and, unless `withLoop` is false, its loop file with `outcomes` outcomes recorded. */
async function makeStore(path: string, outcomes: number, withLoop = true): Promise<void> {
  const store = await openSqliteStore({ path });
  await store.close();
  if (!withLoop) return;
  const loop = await openSqliteLoopStore(path);
  for (let index = 0; index < outcomes; index++) {
    await loop.recordEntry({ token: `t${index}`, surveyId: 7, uid: `u${index}`, cpi: 1.25, at: new Date() });
    await loop.recordOutcome({ token: `t${index}`, outcome: "complete", at: new Date() });
  }
  await loop.close();
}

async function outcomesIn(storePath: string): Promise<number> {
  const loop = await openSqliteLoopStore(storePath);
  try {
    return await loop.latestSequence();
  } finally {
    await loop.close();
  }
}

describe("the SQLite backup and restore scripts", () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "sds-sync-scripts-"));
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("name the loop file as the service does, with or without an extension", async () => {
    await makeStore(join(directory, "store"), 3);
    expect(existsSync(loopDatabasePath(join(directory, "store")))).toBe(true);
    expect((await runScript("sqlite-backup.js", join(directory, "store"), join(directory, "copy"))).code).toBe(0);
    expect(existsSync(loopDatabasePath(join(directory, "copy")))).toBe(true);
    expect(
      (await runScript("sqlite-restore.js", join(directory, "copy"), join(directory, "restored.sqlite"))).code,
    ).toBe(0);
    expect(await outcomesIn(join(directory, "restored.sqlite"))).toBe(3);
    expect(readdirSync(directory).sort()).toEqual([
      "copy",
      "copy.loop.db",
      "restored.loop.sqlite",
      "restored.sqlite",
      "store",
      "store.loop.db",
    ]);
  });

  it("back up a store from before the respondent loop: say so, exit 0, and remove a loop file an earlier backup left under that name", async () => {
    await makeStore(join(directory, "old.db"), 2);
    expect((await runScript("sqlite-backup.js", join(directory, "old.db"), join(directory, "backup.db"))).code).toBe(0);
    await makeStore(join(directory, "pre-loop.db"), 0, false);
    const result = await runScript("sqlite-backup.js", join(directory, "pre-loop.db"), join(directory, "backup.db"));
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toContain(
      `no loop file at ${join(directory, "pre-loop.loop.db")} (a store from before the respondent loop): only the store was backed up`,
    );
    expect(result.stdout).toContain(
      `removed ${join(directory, "backup.loop.db")}, left by an earlier backup under this name`,
    );
    expect(existsSync(join(directory, "backup.loop.db"))).toBe(false);
  });

  it("refuse to restore over a file another process holds open, unless --force", async () => {
    await makeStore(join(directory, "sds.db"), 2);
    expect((await runScript("sqlite-backup.js", join(directory, "sds.db"), join(directory, "backup.db"))).code).toBe(0);
    const target = join(directory, "live.db");
    await makeStore(target, 5);
    const held: LoopStore = await openSqliteLoopStore(target);
    try {
      const refused = await runScript("sqlite-restore.js", join(directory, "backup.db"), target);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`${join(directory, "live.loop.db")} is open in another process: stop sds-sync`);
      expect(await held.latestSequence()).toBe(5);
      const forced = await runScript("sqlite-restore.js", "--force", join(directory, "backup.db"), target);
      expect(forced.code).toBe(0);
    } finally {
      await held.close();
    }
    expect(await outcomesIn(target)).toBe(2);
  });

  it("refuse a damaged backup before touching the target", async () => {
    await makeStore(join(directory, "sds.db"), 200);
    expect((await runScript("sqlite-backup.js", join(directory, "sds.db"), join(directory, "backup.db"))).code).toBe(0);
    const target = join(directory, "target.db");
    await makeStore(target, 4);
    // Garbage over the loop backup's second page and beyond: a torn copy.
    const descriptor = openSync(join(directory, "backup.loop.db"), "r+");
    writeSync(descriptor, Buffer.alloc(8192, 0x5a), 0, 8192, 4096);
    closeSync(descriptor);
    const result = await runScript("sqlite-restore.js", join(directory, "backup.db"), target);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `sqlite-restore: ${join(directory, "backup.loop.db")} is damaged or not a SQLite file: database disk image is malformed`,
    );
    expect(await outcomesIn(target)).toBe(4);
    expect(readdirSync(directory).filter((name) => name.includes("partial"))).toEqual([]);
  });

  it("answer a usage error with exit 2", async () => {
    const db = join(directory, "sds.db");
    for (const [name, args] of [
      ["sqlite-backup.js", []],
      ["sqlite-backup.js", [db]],
      ["sqlite-backup.js", [db, db]],
      ["sqlite-backup.js", ["--frobnicate", db, join(directory, "b.db")]],
      ["sqlite-restore.js", [db]],
      ["sqlite-restore.js", [db, loopDatabasePath(db)]],
      ["loop-to-postgres.js", [db]],
      ["loop-to-postgres.js", [db, "mysql://localhost/db"]],
      ["loop-to-postgres.js", [db, "postgres://localhost/db?schema=x;drop"]],
    ] as const) {
      const result = await runScript(name, ...args);
      expect(result.code, `${name} ${args.join(" ")}`).toBe(2);
      expect(result.stderr).toMatch(/usage: /);
    }
    expect((await runScript("sqlite-restore.js", "--help")).stdout).toMatch(
      /^usage: sqlite-restore\.js \[--force\] BACKUP\.db TARGET\.db/,
    );
  });
});

describe.skipIf(!postgresUp)("loop-to-postgres.js refusals", () => {
  let directory: string;
  let schema: string;
  const databaseUrl = (password = "") => {
    const url = new URL(testDatabaseUrl);
    if (password) url.password = password;
    url.searchParams.set("schema", schema);
    return url.toString();
  };
  const query = async (sql: string) => {
    const client = new pg.Client({ connectionString: testDatabaseUrl });
    await client.connect();
    try {
      return (await client.query<Record<string, unknown>>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), "sds-sync-move-"));
    schema = freshSchemaName("sds_sync_move_refusal");
    await makeStore(join(directory, "sds.db"), 3);
  });
  afterEach(async () => {
    rmSync(directory, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it("refuses a schema where sds-sync never ran, says how to create the tables, and never prints the password", async () => {
    const result = await runScript("loop-to-postgres.js", join(directory, "sds.db"), databaseUrl("s3cret-pass"));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `schema ${schema} has no loop_schema_migrations table: start sds-sync once with this DATABASE_URL`,
    );
    expect(result.stdout + result.stderr).not.toContain("s3cret-pass");
  });

  it("refuses a schema at another version of the loop tables, and copies nothing", async () => {
    await (await openPostgresLoopStore({ connectionString: testDatabaseUrl, schema })).close();
    await query(
      `DELETE FROM "${schema}".loop_schema_migrations WHERE version = (SELECT max(version) FROM "${schema}".loop_schema_migrations)`,
    );
    const result = await runScript("loop-to-postgres.js", join(directory, "sds.db"), databaseUrl());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /the loop tables in schema \w+ are at version (\d+), the SQLite loop file at \d+: start the sds-sync version that migrated the SQLite file once/,
    );
    expect(await query(`SELECT count(*)::int AS count FROM "${schema}".loop_outcomes`)).toEqual([{ count: 0 }]);
  });

  it("refuses a loop file that a running service holds open, unless --force; accepts the loop file's own name", async () => {
    await (await openPostgresLoopStore({ connectionString: testDatabaseUrl, schema })).close();
    const held = await openSqliteLoopStore(join(directory, "sds.db"));
    try {
      const refused = await runScript("loop-to-postgres.js", join(directory, "sds.db"), databaseUrl());
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("is open in another process: stop sds-sync first");
      const forced = await runScript("loop-to-postgres.js", "--force", join(directory, "sds.loop.db"), databaseUrl());
      expect(forced.code, forced.stderr).toBe(0);
      expect(forced.stdout).toMatch(/loop_outcomes\s+3\n/);
    } finally {
      await held.close();
    }
    expect(await query(`SELECT value::int AS value FROM "${schema}".loop_counters WHERE name = 'outcomes'`)).toEqual([
      { value: 3 },
    ]);
  });
});
