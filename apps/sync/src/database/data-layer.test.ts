import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "../../test/postgres.ts";
import { StoreError } from "../common/errors.ts";
import { bool, decimal, integer, isoTime, json, nullable, oneOf, text } from "./columns.ts";
import { postgresDialect } from "./postgres-dialect.ts";
import { runPostgresTransaction } from "./postgres-driver.ts";
import { execute, executeRows, first, one, rows, whole, type Program } from "./program.ts";
import { sqliteDialect } from "./sqlite-dialect.ts";
import { SqliteConnection } from "./sqlite-driver.ts";
import { command, compileStatement, statement } from "./statement.ts";

const ITEMS_TABLE =
  "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL, kind TEXT NOT NULL)";

function connection(): SqliteConnection {
  const db = new DatabaseSync(":memory:");
  db.exec(ITEMS_TABLE);
  return new SqliteConnection(db);
}

const kinds = ["book", "game"] as const;
const INSERT = command<[id: number, name: string, price: number, kind: string]>(
  "INSERT INTO items (id, name, price, kind) VALUES (?, ?, ?, ?)",
);
const ITEMS = statement<[ids: readonly number[]], { id: number; name: string; kind: (typeof kinds)[number] }>(
  (dialect) => `SELECT id, name, kind FROM items WHERE ${dialect.inList("id", "bigint")} ORDER BY id`,
  (row) => ({ id: integer(row.id), name: text(row.name), kind: oneOf(kinds)(row.kind) }),
);
/** A lock only concurrent writers need: SQLite's dialect skips it. */
const LOCK = command<[]>((dialect) => {
  const locks = dialect.advisoryLocks([{ name: "items" }]);
  return locks === null ? null : `SELECT ${locks}`;
});

/** One program for both drivers: a lock only PostgreSQL takes, three inserts, a read by a bound list. */
function* insertThenFind(): Program<{ inserted: number; found: unknown[] }> {
  yield* execute(LOCK);
  let inserted = 0;
  for (const [id, name] of [
    [1, "a"],
    [2, "b"],
    [3, "c"],
  ] as const)
    inserted += yield* execute(INSERT, id, name, 9.5, "book");
  return { inserted, found: yield* rows(ITEMS, [3, 1, 42]) };
}

const postgres = await postgresAvailable();

describe("programs over typed statements", () => {
  it("runs a program on SQLite: binds a list, skips what the dialect does not need, decodes each row once", () => {
    const result = connection().run(insertThenFind());
    expect(result).toEqual({
      inserted: 3,
      found: [
        { id: 1, name: "a", kind: "book" },
        { id: 3, name: "c", kind: "book" },
      ],
    });
  });

  it.skipIf(!postgres)("runs the same program on PostgreSQL to the same result", async () => {
    const schema = freshSchemaName("sds_data_layer");
    const pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 1, options: `-c search_path=${schema}` });
    try {
      await pool.query(`CREATE SCHEMA ${schema}`);
      await pool.query(ITEMS_TABLE);
      expect(await runPostgresTransaction(pool, insertThenFind())).toEqual(connection().run(insertThenFind()));
    } finally {
      await pool.end();
      await dropSchema(schema);
    }
  });

  it.skipIf(!postgres)(
    "runs a whole write on PostgreSQL as its one statement, without BEGIN and COMMIT; SQLite runs it as any step",
    async () => {
      const schema = freshSchemaName("sds_data_layer");
      const pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 1, options: `-c search_path=${schema}` });
      function* insertOne(): Program<number> {
        return (yield* whole(INSERT, 1, "a", 9.5, "book")).length;
      }
      function* insertTwo(): Program<number> {
        yield* whole(INSERT, 1, "a", 9.5, "book");
        return yield* execute(INSERT, 2, "b", 9.5, "book");
      }
      try {
        await pool.query(`CREATE SCHEMA ${schema}`);
        await pool.query(ITEMS_TABLE);
        // A spy calls through: the statements are run, and each one sent is seen.
        const query = vi.spyOn(pg.Client.prototype, "query");
        await runPostgresTransaction(pool, insertOne());
        const sent = query.mock.calls.map(([config]: readonly unknown[]) =>
          typeof config === "string" ? config : (config as { text: string }).text,
        );
        query.mockRestore();
        expect(sent).toEqual(["INSERT INTO items (id, name, price, kind) VALUES ($1, $2, $3, $4)"]);
        await pool.query("DELETE FROM items");
        await expect(runPostgresTransaction(pool, insertTwo())).rejects.toThrow(StoreError);
        expect(connection().run(insertOne())).toBe(0);
      } finally {
        vi.restoreAllMocks();
        await pool.end();
        await dropSchema(schema);
      }
    },
  );

  it.skipIf(!postgres)(
    "writes many rows in one program: a statement per row on SQLite, one per chunk of column arrays on PostgreSQL, to the same rows",
    async () => {
      const INSERT_ROWS = command<[id: number, name: string, price: number]>(
        (dialect) =>
          `INSERT INTO items (id, name, price, kind) ${dialect.rowsOf(["bigint", "text", "decimal", { literal: "'book'" }])}`,
      );
      const ALL = statement<[], unknown>("SELECT id, name, price, kind FROM items ORDER BY id", (row) => ({
        id: integer(row.id),
        name: text(row.name),
        price: decimal(row.price),
        kind: text(row.kind),
      }));
      const written = Array.from({ length: 7001 }, (_, index) => [index + 1, `item ${index}`, index / 4] as const);
      function* writeThenRead(): Program<{ changed: number; stored: unknown[] }> {
        const changed = yield* executeRows(INSERT_ROWS, written);
        return { changed, stored: yield* rows(ALL) };
      }
      const schema = freshSchemaName("sds_data_layer");
      const pool = new pg.Pool({ connectionString: testDatabaseUrl, max: 1, options: `-c search_path=${schema}` });
      try {
        await pool.query(`CREATE SCHEMA ${schema}`);
        await pool.query(ITEMS_TABLE);
        const query = vi.spyOn(pg.Client.prototype, "query");
        const onPostgres = await runPostgresTransaction(pool, writeThenRead());
        const inserts = query.mock.calls.filter(([config]: readonly unknown[]) =>
          (config as { text?: string }).text?.startsWith("INSERT"),
        );
        query.mockRestore();
        expect(inserts).toHaveLength(2);
        const onSqlite = connection().run(writeThenRead());
        expect(onSqlite.changed).toBe(7001);
        expect(onSqlite.stored[7000]).toEqual({ id: 7001, name: "item 7000", price: 1750, kind: "book" });
        expect(onPostgres).toEqual(onSqlite);
      } finally {
        vi.restoreAllMocks();
        await pool.end();
        await dropSchema(schema);
      }
    },
  );

  it("refuses a value the store should not hold with a StoreError, never a default", () => {
    const db = connection();
    db.run(execute(INSERT, 1, "a", 1, "comic"));
    expect(() => db.run(rows(ITEMS, [1]))).toThrow(StoreError);
    expect(() => db.run(rows(ITEMS, [1]))).toThrow(/"comic" where one of book, game was expected/);
  });

  it("makes up no row: `one` without a row is a StoreError, `first` is undefined", () => {
    const db = connection();
    expect(db.run(first(ITEMS, [7]))).toBeUndefined();
    expect(() => db.run(one(ITEMS, [7]))).toThrow(StoreError);
  });
});

describe("the dialect objects", () => {
  it("compile one statement per dialect: placeholders, names and skipped locks", () => {
    const sqlite = compileStatement(ITEMS.text, sqliteDialect);
    const postgres = compileStatement(ITEMS.text, postgresDialect);
    expect(sqlite).toEqual({
      text: "SELECT id, name, kind FROM items WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
      name: undefined,
    });
    expect(postgres?.text).toBe("SELECT id, name, kind FROM items WHERE id = ANY($1::bigint[]) ORDER BY id");
    expect(postgres?.name).toMatch(/^sds_\d+$/);
    expect(compileStatement(LOCK.text, sqliteDialect)).toBeNull();
    expect(compileStatement(LOCK.text, postgresDialect)?.text).toBe(
      "SELECT pg_advisory_xact_lock(5456979, hashtext(current_schema() || ':items'))",
    );
  });
});

describe("column decoders", () => {
  it("read what either driver returns", () => {
    expect(integer(7)).toBe(7);
    expect(integer("9007199254740991")).toBe(9007199254740991);
    expect(decimal("1.25")).toBe(1.25);
    expect(isoTime(new Date("2026-01-02T03:04:05.000Z"))).toBe("2026-01-02T03:04:05.000Z");
    expect(isoTime("2026-01-02T03:04:05.000Z")).toBe("2026-01-02T03:04:05.000Z");
    expect([bool(1), bool(false)]).toEqual([true, false]);
    expect(json('{"a":1}')).toEqual({ a: 1 });
    expect(nullable(integer)(null)).toBeNull();
  });

  it("refuse what neither driver should return", () => {
    for (const decode of [
      () => integer("12abc"),
      () => integer(1.5),
      () => integer("9007199254740993"),
      () => decimal("NaN"),
      () => decimal(""),
      () => text(3),
      () => isoTime("yesterday"),
      () => bool("yes"),
      () => integer(null),
      () => json('{"a":'),
    ])
      expect(decode).toThrow(StoreError);
  });
});
