#!/usr/bin/env node
// Online backup of sds-sync's SQLite files, safe while the service runs: the store (SOURCE.db,
// the inventory) and the respondent loop's file beside it (SOURCE.loop.db: entry links,
// outcomes, counts), to DESTINATION.db and DESTINATION.loop.db. Needs nothing but Node
// (node:sqlite's backup API; no sqlite3 CLI).
//   node deploy/sqlite-backup.js /var/lib/sds-sync/sds.db /var/backups/sds-sync/sds-$(date +%F).db
//
// Consistent means: each file is copied in one read transaction, so each copy is a consistent
// snapshot of its store. The two are independent stores (no record refers across them), so
// they need no common instant; the loop file is copied last, so it holds every outcome the
// service acknowledged before this command started. Each copy is written beside its
// destination, checked (PRAGMA integrity_check, the schema version from its own ledger) and
// only then renamed into place: a failed run leaves an earlier backup of the same name alone.
// DESTINATION's directory is created when missing.
// Exit 0 when both copies are sound, 1 on failure, 2 on a usage error.
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { backup, DatabaseSync } from "node:sqlite";
import {
  inspectFile,
  ledgers,
  loopPathOf,
  messageOf,
  openForReading,
  partialPath,
  removeSideFiles,
  syncDirectory,
} from "./sqlite-files.js";

const USAGE =
  "usage: sqlite-backup.js SOURCE.db DESTINATION.db   (also copies SOURCE.loop.db to DESTINATION.loop.db)\n";
// Every page in one step, so one read transaction: a writer committing between steps would
// restart a step-wise backup, and a busy service could keep restarting it.
const ALL_PAGES = 2 ** 31 - 1;

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (args.length !== 2 || args.some((arg) => arg === "" || arg.startsWith("-"))) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const [source, destination] = args;
const files = [
  { name: "store", from: source, to: destination, ledger: ledgers.store, versionLabel: "schema version" },
  {
    name: "loop",
    from: loopPathOf(source),
    to: loopPathOf(destination),
    ledger: ledgers.loop,
    versionLabel: "loop schema version",
  },
];
const sources = new Set(files.map((file) => resolve(file.from)));
if (files.some((file) => sources.has(resolve(file.to)))) {
  process.stderr.write(`sqlite-backup: DESTINATION must not be SOURCE or its loop file\n${USAGE}`);
  process.exit(2);
}

/** Copies one file online to its partial name and checks the copy. */
async function copyOnline(file) {
  const partial = partialPath(file.to);
  file.partial = partial;
  rmSync(partial, { force: true });
  removeSideFiles(partial);
  const database = openForReading(file.from);
  try {
    file.pages = await backup(database, partial, { rate: ALL_PAGES });
  } finally {
    database.close();
  }
  // A self-contained file: nothing is ever written beside the backup (-wal, -shm) by whoever
  // reads it later. The service turns WAL on again when it opens a restored file.
  const copy = new DatabaseSync(partial);
  try {
    copy.exec("PRAGMA journal_mode = DELETE");
  } finally {
    copy.close();
  }
  file.version = inspectFile(partial, file.ledger, `the copy of ${file.from}`).version;
}

const lines = [];
try {
  if (!existsSync(source)) throw new Error(`${source} does not exist`);
  const [store, loop] = files;
  mkdirSync(dirname(destination), { recursive: true });
  await copyOnline(store);
  const loopExists = existsSync(loop.from);
  if (loopExists) await copyOnline(loop);
  for (const file of loopExists ? files : [store]) {
    removeSideFiles(file.to);
    renameSync(file.partial, file.to);
    file.partial = undefined;
    lines.push(
      `backed up ${file.from} to ${file.to} (${file.pages} pages, ${file.versionLabel} ${file.version}, integrity ok)`,
    );
  }
  syncDirectory(destination);
  if (loopExists) {
    lines.push(
      "consistent: each file is a consistent snapshot of its own store; the two are independent stores, " +
        "and the loop file was copied last, so it holds every outcome acknowledged before this command started",
    );
  } else {
    lines.push(`no loop file at ${loop.from} (a store from before the respondent loop): only the store was backed up`);
    // A loop file of an earlier backup under this name does not belong to this one.
    if (existsSync(loop.to)) {
      rmSync(loop.to);
      removeSideFiles(loop.to);
      lines.push(`removed ${loop.to}, left by an earlier backup under this name`);
    }
  }
  process.stdout.write(`${lines.join("\n")}\n`);
} catch (error) {
  for (const file of files) {
    if (file.partial === undefined) continue;
    rmSync(file.partial, { force: true });
    removeSideFiles(file.partial);
  }
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
  process.stderr.write(`sqlite-backup: ${messageOf(error)}\n`);
  process.exitCode = 1;
}
