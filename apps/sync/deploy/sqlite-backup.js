#!/usr/bin/env node
// Online backup of sds-sync's SQLite store, safe while the service runs: SQLite's backup API
// copies a consistent snapshot page by page (node:sqlite, no sqlite3 CLI needed), then the copy
// is checked with PRAGMA integrity_check. Exit 0 when the copy is sound.
//   node deploy/sqlite-backup.js /var/lib/sds-sync/sds.db /var/backups/sds-sync/sds-$(date +%F).db
import { backup, DatabaseSync } from "node:sqlite";

const [source, destination] = process.argv.slice(2);
if (!source || !destination) {
  process.stderr.write("usage: sqlite-backup.js SOURCE.db DESTINATION.db\n");
  process.exit(2);
}
const database = new DatabaseSync(source, { readOnly: true });
try {
  const pages = await backup(database, destination);
  const copy = new DatabaseSync(destination, { readOnly: true });
  const check = copy.prepare("PRAGMA integrity_check").get();
  const version = copy.prepare("SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations").get();
  copy.close();
  if (check?.integrity_check !== "ok") throw new Error(`integrity check of the copy failed: ${JSON.stringify(check)}`);
  process.stdout.write(`backed up ${source} to ${destination} (${pages} pages, schema version ${version?.version}, integrity ok)\n`);
} catch (error) {
  process.stderr.write(`sqlite-backup: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  database.close();
}
