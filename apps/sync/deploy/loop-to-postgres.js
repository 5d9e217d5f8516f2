#!/usr/bin/env node
// Moves the respondent loop's records (entry links, outcome transitions, orphans, respondents,
// conversion counts per survey lifetime and hourly, the feed's counters) from sds-sync's SQLite
// loop file into the PostgreSQL schema a DATABASE_URL names, for an operator moving from SQLite
// to PostgreSQL. The inventory is not moved: the first cycle on PostgreSQL fetches it again.
//   node deploy/loop-to-postgres.js /var/lib/sds-sync/sds.db 'postgres://sds@db:5432/sds?schema=public'
//
// It creates nothing: sds-sync creates its tables when it first starts on PostgreSQL (run it
// once with the new DATABASE_URL, then stop it). It refuses, changing nothing, unless the
// target's loop_schema_migrations is at the source's version, the target's loop tables are
// empty (counters all zero) and have the source's columns, and no other process holds the
// SQLite loop file open (stop sds-sync first; --force reads it anyway, as one snapshot). Every
// loop table is copied in one PostgreSQL transaction (batched inserts, the tables locked against
// writers), the counters are set exactly, and the rows of every table are counted on both sides
// before the commit: any difference rolls everything back.
// Exit 0 when copied, 1 on failure or refusal, 2 on a usage error. The URL's password is never printed.
import { existsSync } from "node:fs";
import pg from "pg";
import { inspectFile, isOpenElsewhere, ledgers, loopPathOf, messageOf, openForReading } from "./sqlite-files.js";

const USAGE =
  "usage: loop-to-postgres.js [--force] SQLITE.db DATABASE_URL\n" +
  "  SQLITE.db     the SQLite store (its loop file SQLITE.loop.db is read), or the loop file itself\n" +
  "  DATABASE_URL  postgres://user:password@host:5432/db?schema=NAME, as sds-sync's (schema public when absent)\n" +
  "  --force       read the loop file even while another process has it open\n";
/** Parameters per INSERT stay far below PostgreSQL's 65535. */
const PARAMETERS_PER_INSERT = 30_000;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** The one table whose rows the migrations create: it counts as empty while every value is 0. */
const COUNTERS = "loop_counters";
/**
 * What sds-sync fetches from the upstream and keeps as it was last read: the routing data (survey
 * groups, re-contact lists, stats, when each was fetched), the sessions' question catalogue, and
 * their version counters. Not records but copies of the marketplace's, fetched by any sds-sync
 * that ran on the target (as the runbook asks, to create the tables). The target's are replaced by
 * the source's; they never make the target count as used.
 */
const ROUTING_DATA_TABLES = new Set([
  "loop_routing_fetches",
  "loop_survey_groups",
  "loop_survey_stats",
  "loop_recontact_respondents",
  "loop_questions",
]);
const ROUTING_DATA_COUNTERS = ["routing-data", "questions"];

class UsageError extends Error {}

/** The connection and schema of a DATABASE_URL, as sds-sync reads it (`?schema=`, default public). */
function parseDatabaseUrl(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    // The text itself is not echoed: it may hold a password.
    throw new UsageError("DATABASE_URL is not a URL");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:")
    throw new UsageError("DATABASE_URL must start with postgres:// or postgresql://");
  const schema = url.searchParams.get("schema") ?? "public";
  if (!IDENTIFIER.test(schema))
    throw new UsageError(`the schema parameter must be a plain SQL identifier, got ${JSON.stringify(schema)}`);
  url.searchParams.delete("schema");
  return { connectionString: url.toString(), schema, shown: `${url.host}${url.pathname} (schema ${schema})` };
}

function parseArguments(argv) {
  const force = argv.includes("--force");
  const positional = argv.filter((arg) => arg !== "--force");
  if (positional.length !== 2 || positional.some((arg) => arg === "" || arg.startsWith("-")))
    throw new UsageError("expected SQLITE.db and DATABASE_URL");
  return { force, sqlitePath: positional[0], target: parseDatabaseUrl(positional[1]) };
}

const quote = (identifier) => {
  if (!IDENTIFIER.test(identifier))
    throw new Error(`unexpected table or column name ${JSON.stringify(identifier)} in the loop file`);
  return `"${identifier}"`;
};

/** The loop file: beside the store file given, or the file given when it is one. */
function locateLoopFile(given) {
  const beside = loopPathOf(given);
  if (existsSync(beside)) return beside;
  if (existsSync(given)) {
    try {
      inspectFile(given, ledgers.loop);
      return given;
    } catch {
      // Not a loop file either: the error below says what was looked for.
    }
  }
  throw new Error(
    `no loop file at ${beside}: nothing to move (a store from before the respondent loop has no loop records)`,
  );
}

/** Phase 1: the source, sound and idle; its tables, their columns and row counts, read in one snapshot later. */
function openSource(path, force) {
  const { version } = inspectFile(path, ledgers.loop);
  if (!force && isOpenElsewhere(path)) {
    throw new Error(
      `${path} is open in another process: stop sds-sync first (outcomes recorded after the copy would be lost), or pass --force`,
    );
  }
  const database = openForReading(path);
  // One read transaction from the first SELECT to the end: every table from the same snapshot.
  database.exec("BEGIN");
  const tables = database
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> ? ORDER BY name",
    )
    .all(ledgers.loop)
    .map((row) => {
      const name = String(row.name);
      const columns = database
        .prepare(`PRAGMA table_info(${quote(name)})`)
        .all()
        .map((column) => String(column.name));
      columns.forEach(quote);
      const count = Number(database.prepare(`SELECT COUNT(*) AS count FROM ${quote(name)}`).get()?.count ?? 0);
      return { name, columns, count };
    });
  return { database, version, tables };
}

/** Phase 2: the target, at the source's version, with every table and column, nothing recorded; locked against writers. */
async function checkTarget(client, schema, version, tables) {
  const ledger = await client.query("SELECT to_regclass($1) IS NOT NULL AS present", [
    `${quote(schema)}.${ledgers.loop}`,
  ]);
  if (!ledger.rows[0]?.present) {
    throw new Error(
      `schema ${schema} has no ${ledgers.loop} table: start sds-sync once with this DATABASE_URL (it creates its tables), stop it, then run this again`,
    );
  }
  const applied = await client.query(
    `SELECT COALESCE(MAX(version), 0)::int AS version FROM ${quote(schema)}.${ledgers.loop}`,
  );
  const targetVersion = applied.rows[0]?.version ?? 0;
  if (targetVersion !== version) {
    const remedy =
      targetVersion < version
        ? "start the sds-sync version that migrated the SQLite file once on this DATABASE_URL (it migrates the PostgreSQL tables), stop it"
        : "start this sds-sync version once on the SQLite store (it migrates the loop file), stop it";
    throw new Error(
      `the loop tables in schema ${schema} are at version ${targetVersion}, the SQLite loop file at ${version}: ${remedy}, then run this again`,
    );
  }
  for (const table of tables) {
    const found = await client.query(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2",
      [schema, table.name],
    );
    const targetColumns = new Set(found.rows.map((row) => row.column_name));
    if (targetColumns.size === 0) throw new Error(`schema ${schema} has no table ${table.name}`);
    const missing = table.columns.filter((column) => !targetColumns.has(column));
    if (missing.length > 0 || targetColumns.size !== table.columns.length) {
      throw new Error(
        `${table.name} differs between the two stores (SQLite: ${table.columns.join(", ")}; PostgreSQL: ${[...targetColumns].join(", ")})`,
      );
    }
  }
  await client.query("SET LOCAL lock_timeout = '10s'");
  try {
    await client.query(
      `LOCK TABLE ${tables.map((table) => `${quote(schema)}.${quote(table.name)}`).join(", ")} IN SHARE ROW EXCLUSIVE MODE`,
    );
  } catch (error) {
    throw new Error(
      `the loop tables in schema ${schema} are in use: stop every sds-sync on this DATABASE_URL first (${messageOf(error)})`,
      { cause: error },
    );
  }
  const recorded = [];
  for (const table of tables) {
    if (ROUTING_DATA_TABLES.has(table.name)) continue;
    // The windows' edges (`window-edge:*`) are set to the clock by the migration itself: they say nothing was recorded.
    const condition =
      table.name === COUNTERS
        ? ` WHERE value <> 0 AND name NOT LIKE 'window-edge:%' AND name NOT IN (${ROUTING_DATA_COUNTERS.map((name) => `'${name}'`).join(", ")})`
        : "";
    const result = await client.query(
      `SELECT COUNT(*)::int AS count FROM ${quote(schema)}.${quote(table.name)}${condition}`,
    );
    const count = result.rows[0]?.count ?? 0;
    const unit = table.name === COUNTERS ? "non-zero counter" : "row";
    if (count > 0) recorded.push(`${table.name}: ${count} ${unit}${count === 1 ? "" : "s"}`);
  }
  if (recorded.length > 0) {
    throw new Error(
      `schema ${schema} already holds loop records (${recorded.join(", ")}): refusing to mix them; copy into a schema where sds-sync has recorded nothing`,
    );
  }
}

/** SQLite values as node-postgres sends them: 64-bit integers as text, exactly. */
const toParameter = (value) =>
  typeof value === "bigint" ? value.toString() : value instanceof Uint8Array ? Buffer.from(value) : value;

/** Phase 3: one table, in batched INSERTs. */
async function copyTable(client, database, schema, table) {
  const columnList = table.columns.map(quote).join(", ");
  const perInsert = Math.max(1, Math.min(1000, Math.floor(PARAMETERS_PER_INSERT / table.columns.length)));
  const insert = async (rows) => {
    const values = rows.map(
      (_, row) =>
        `(${table.columns.map((_column, column) => `$${row * table.columns.length + column + 1}`).join(", ")})`,
    );
    await client.query(
      `INSERT INTO ${quote(schema)}.${quote(table.name)} (${columnList}) VALUES ${values.join(", ")}`,
      rows.flat(),
    );
  };
  const statement = database.prepare(`SELECT ${columnList} FROM ${quote(table.name)}`);
  statement.setReadBigInts(true);
  let batch = [];
  for (const row of statement.iterate()) {
    batch.push(table.columns.map((column) => toParameter(row[column])));
    if (batch.length === perInsert) {
      await insert(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await insert(batch);
}

/** Phase 4: every table's rows counted on both sides, and the counters compared value by value. */
async function verify(client, database, schema, tables) {
  const report = [];
  for (const table of tables) {
    const result = await client.query(`SELECT COUNT(*)::bigint AS count FROM ${quote(schema)}.${quote(table.name)}`);
    const copied = Number(result.rows[0]?.count ?? -1);
    if (copied !== table.count)
      throw new Error(`${table.name}: ${table.count} rows in SQLite but ${copied} in PostgreSQL after the copy`);
    report.push({ name: table.name, count: copied });
  }
  const counters = (rows) => JSON.stringify(rows.map((row) => [String(row.name), String(row.value)]).sort());
  const source = database.prepare(`SELECT name, value FROM ${COUNTERS}`);
  source.setReadBigInts(true);
  const target = await client.query(`SELECT name, value::text AS value FROM ${quote(schema)}.${COUNTERS}`);
  if (counters(source.all()) !== counters(target.rows))
    throw new Error(
      `${COUNTERS} differ after the copy: SQLite ${counters(source.all())}, PostgreSQL ${counters(target.rows)}`,
    );
  const feed = target.rows.find((row) => row.name === "outcomes")?.value ?? "0";
  return { report, feed };
}

async function move({ force, sqlitePath, target }) {
  const path = locateLoopFile(sqlitePath);
  const source = openSource(path, force);
  const client = new pg.Client({
    connectionString: target.connectionString,
    application_name: "sds-sync loop-to-postgres",
  });
  try {
    await client.connect();
    await client.query("BEGIN");
    await checkTarget(client, target.schema, source.version, source.tables);
    // The migrations' zero counters give way to the source's, so every counter is exactly the source's;
    // so does the routing data a start on the target fetched.
    await client.query(`DELETE FROM ${quote(target.schema)}.${COUNTERS}`);
    for (const table of source.tables)
      if (ROUTING_DATA_TABLES.has(table.name))
        await client.query(`DELETE FROM ${quote(target.schema)}.${quote(table.name)}`);
    for (const table of source.tables) await copyTable(client, source.database, target.schema, table);
    const { report, feed } = await verify(client, source.database, target.schema, source.tables);
    await client.query("COMMIT");
    const width = Math.max(...report.map((table) => table.name.length));
    process.stdout.write(
      [
        `read ${path} (loop schema version ${source.version}, integrity ok, one snapshot)`,
        `copied into ${target.shown} in one transaction; rows per table, counted on both sides:`,
        ...report.map((table) => `  ${table.name.padEnd(width)}  ${table.count}`),
        `outcome feed at sequence ${feed}; start sds-sync with this DATABASE_URL`,
        "",
      ].join("\n"),
    );
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end().catch(() => undefined);
    source.database.close();
  }
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
try {
  await move(parseArguments(argv));
} catch (error) {
  const usage = error instanceof UsageError;
  process.stderr.write(`loop-to-postgres: ${messageOf(error)}\n${usage ? USAGE : ""}`);
  process.exitCode = usage ? 2 : 1;
}
