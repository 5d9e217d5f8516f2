import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_GROUP_WRITES, SqliteGroupCommit } from "./sqlite-group-commit.ts";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function openDatabase(): { db: DatabaseSync; path: string } {
  const directory = mkdtempSync(join(tmpdir(), "sds-group-commit-"));
  directories.push(directory);
  const path = join(directory, "test.db");
  const db = new DatabaseSync(path);
  db.exec(
    "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE items (id INTEGER PRIMARY KEY, note TEXT NOT NULL)",
  );
  return { db, path };
}

const insert = (db: DatabaseSync, id: number, note: string | null) => () =>
  Number(db.prepare("INSERT INTO items (id, note) VALUES (?, ?)").run(id, note).changes);
const ids = (db: DatabaseSync) =>
  (db.prepare("SELECT id FROM items ORDER BY id").all() as { id: number }[]).map((row) => row.id);

describe("SqliteGroupCommit", () => {
  it("runs the writes of one turn in one transaction, in order, and resolves each once it is committed", async () => {
    const { db, path } = openDatabase();
    const writes = new SqliteGroupCommit(db);
    const reader = new DatabaseSync(path, { readOnly: true });
    const visibleToOthers: number[][] = [];
    const results = await Promise.all([
      writes.write(insert(db, 1, "item 1")),
      writes.write(() => {
        // Inside the group: the first write is not committed yet, so another connection sees nothing.
        visibleToOthers.push(ids(reader));
        return insert(db, 2, "item 2")();
      }),
      writes.write(insert(db, 3, "item 3")),
    ]);
    expect(results).toEqual([1, 1, 1]);
    expect(visibleToOthers).toEqual([[]]);
    // Committed before anything resolved.
    expect(ids(reader)).toEqual([1, 2, 3]);
    reader.close();
    db.close();
  });

  it("commits a burst in groups of at most MAX_GROUP_WRITES, one turn each, in order", async () => {
    const { db, path } = openDatabase();
    const writes = new SqliteGroupCommit(db);
    const reader = new DatabaseSync(path, { readOnly: true });
    const committedBefore = new Map<number, number>();
    const count = MAX_GROUP_WRITES * 2 + 5;
    const results = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        writes.write(() => {
          // What another connection sees as each write runs: the groups before it, committed.
          committedBefore.set(index, ids(reader).length);
          return insert(db, index + 1, `item ${index}`)();
        }),
      ),
    );
    expect(results).toHaveLength(count);
    expect(committedBefore.get(0)).toBe(0);
    expect(committedBefore.get(MAX_GROUP_WRITES - 1)).toBe(0);
    expect(committedBefore.get(MAX_GROUP_WRITES)).toBe(MAX_GROUP_WRITES);
    expect(committedBefore.get(MAX_GROUP_WRITES * 2)).toBe(MAX_GROUP_WRITES * 2);
    expect(ids(reader)).toHaveLength(count);
    reader.close();
    db.close();
  });

  it("lets each write see the ones asked for before it", async () => {
    const { db } = openDatabase();
    const writes = new SqliteGroupCommit(db);
    const first = writes.write(insert(db, 1, "first"));
    const seen = writes.write(() => ids(db));
    await first;
    expect(await seen).toEqual([1]);
    db.close();
  });

  it("rolls back a write that throws alone, after it wrote, and commits the others of its group", async () => {
    const { db } = openDatabase();
    const writes = new SqliteGroupCommit(db);
    const failing = writes.write(() => {
      insert(db, 2, "written, then undone")();
      insert(db, 3, null)(); // NOT NULL: throws after the first insert of this write
    });
    const [before, after] = [writes.write(insert(db, 1, "kept")), writes.write(insert(db, 4, "kept too"))];
    await expect(failing).rejects.toThrow(/NOT NULL/);
    await expect(before).resolves.toBe(1);
    await expect(after).resolves.toBe(1);
    expect(ids(db)).toEqual([1, 4]);
    db.close();
  });

  it("rejects every write of the group when the transaction cannot begin, and keeps none", async () => {
    const { db, path } = openDatabase();
    const writes = new SqliteGroupCommit(db);
    // Another connection holds the write lock; busy_timeout 0 makes BEGIN IMMEDIATE fail at once.
    const other = new DatabaseSync(path);
    other.exec("BEGIN IMMEDIATE");
    const results = await Promise.allSettled([writes.write(insert(db, 1, "a")), writes.write(insert(db, 2, "b"))]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    other.exec("ROLLBACK");
    other.close();
    expect(ids(db)).toEqual([]);
    // The next group works.
    await expect(writes.write(insert(db, 3, "c"))).resolves.toBe(1);
    expect(ids(db)).toEqual([3]);
    db.close();
  });

  it("commits what is waiting when flushed (the store flushes before it closes)", async () => {
    const { db, path } = openDatabase();
    const writes = new SqliteGroupCommit(db);
    const pending = writes.write(insert(db, 7, "asked for just before close"));
    writes.flush();
    db.close();
    await expect(pending).resolves.toBe(1);
    const reader = new DatabaseSync(path, { readOnly: true });
    expect(ids(reader)).toEqual([7]);
    reader.close();
  });
});
