#!/usr/bin/env node
// Restores a backup taken by sqlite-backup.js, with the service stopped: BACKUP.db to
// TARGET.db and BACKUP.loop.db to TARGET.loop.db (the respondent loop's file beside it).
//   systemctl stop sds-sync
//   node deploy/sqlite-restore.js /var/backups/sds-sync/sds-2025-01-31.db /var/lib/sds-sync/sds.db
//   systemctl start sds-sync
//
// In order: both backup files are checked (PRAGMA integrity_check, schema version from each
// one's ledger) before anything is touched; a target file that another process holds open (a
// running sds-sync, a sqlite3 shell: best effort, by asking for an exclusive lock) is refused
// unless --force; each file is copied beside its target, given the owner and mode of the file it
// replaces (of the directory when new), and renamed into place after the target's stale -wal and
// -shm are removed (a WAL left beside a replaced file would be replayed onto it). A backup from
// before the respondent loop has no loop file: the target's loop file is then left as it is.
// Exit 0 when restored, 1 on failure (nothing replaced when a check fails), 2 on a usage error.
import { chmodSync, chownSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { backup } from "node:sqlite";
import {
  inspectFile,
  isOpenElsewhere,
  ledgers,
  loopPathOf,
  messageOf,
  openForReading,
  partialPath,
  removeSideFiles,
  syncDirectory,
} from "./sqlite-files.js";

const USAGE =
  "usage: sqlite-restore.js [--force] BACKUP.db TARGET.db   (also restores BACKUP.loop.db to TARGET.loop.db)\n" +
  "  stop sds-sync first; --force replaces target files even while another process has them open\n";
const ALL_PAGES = 2 ** 31 - 1;

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const force = args.includes("--force");
const paths = args.filter((arg) => arg !== "--force");
if (paths.length !== 2 || paths.some((arg) => arg === "" || arg.startsWith("-"))) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const [backupPath, target] = paths;
const files = [
  { from: backupPath, to: target, ledger: ledgers.store, versionLabel: "schema version" },
  { from: loopPathOf(backupPath), to: loopPathOf(target), ledger: ledgers.loop, versionLabel: "loop schema version" },
];
const backups = new Set(files.map((file) => resolve(file.from)));
if (files.some((file) => backups.has(resolve(file.to)))) {
  process.stderr.write(`sqlite-restore: TARGET must not be BACKUP or its loop file\n${USAGE}`);
  process.exit(2);
}

/** The owner and mode a restored file takes: those of the file it replaces, else of its directory (minus execute). */
function ownershipFor(path) {
  if (existsSync(path)) {
    const { uid, gid, mode } = statSync(path);
    return { uid, gid, mode: mode & 0o777 };
  }
  const { uid, gid, mode } = statSync(dirname(path));
  return { uid, gid, mode: mode & 0o666 };
}

/** Copies one backup file beside its target (through SQLite, so a WAL beside the backup counts too). */
async function copyBeside(file) {
  const partial = partialPath(file.to);
  file.partial = partial;
  rmSync(partial, { force: true });
  removeSideFiles(partial);
  const database = openForReading(file.from);
  try {
    await backup(database, partial, { rate: ALL_PAGES });
  } finally {
    database.close();
  }
  const { uid, gid, mode } = ownershipFor(file.to);
  chmodSync(partial, mode);
  try {
    chownSync(partial, uid, gid);
  } catch (error) {
    // Only root may give a file away; anyone else restores as the service's own user.
    if (error?.code !== "EPERM") throw error;
  }
}

const lines = [];
try {
  // 1. Both backup files sound, before anything is touched.
  files[0].version = inspectFile(files[0].from, files[0].ledger).version;
  const hasLoop = existsSync(files[1].from);
  if (hasLoop) files[1].version = inspectFile(files[1].from, files[1].ledger).version;
  const restoring = hasLoop ? files : [files[0]];

  // 2. Nobody holds a target open.
  if (!force) {
    for (const file of restoring) {
      if (isOpenElsewhere(file.to)) {
        throw new Error(
          `${file.to} is open in another process: stop sds-sync (and any sqlite3 shell on it) first, or pass --force to replace it anyway`,
        );
      }
    }
  }

  // 3. Copies beside the targets, then into place.
  mkdirSync(dirname(target), { recursive: true });
  for (const file of restoring) await copyBeside(file);
  for (const file of restoring) {
    removeSideFiles(file.to);
    renameSync(file.partial, file.to);
    file.partial = undefined;
  }
  syncDirectory(target);

  // 4. What is in place now.
  for (const file of restoring) {
    const { version } = inspectFile(file.to, file.ledger);
    lines.push(`restored ${file.from} to ${file.to} (${file.versionLabel} ${version}, integrity ok)`);
  }
  if (!hasLoop) {
    const kept = existsSync(files[1].to) ? `${files[1].to} left as it is` : "no loop file restored";
    lines.push(`no loop file at ${files[1].from} (a backup from before the respondent loop): ${kept}`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
} catch (error) {
  for (const file of files) {
    if (file.partial === undefined) continue;
    rmSync(file.partial, { force: true });
    removeSideFiles(file.partial);
  }
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
  process.stderr.write(`sqlite-restore: ${messageOf(error)}\n`);
  process.exitCode = 1;
}
