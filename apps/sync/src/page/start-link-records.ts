import { createHash } from "node:crypto";
import { nullable, text } from "../database/columns.ts";
import { execute, first, type Program } from "../database/program.ts";
import { command, statement } from "../database/statement.ts";

/*
 * The start links that started a session, in the loop store (`loop_start_links`, loop migration
 * 11), so every replica lands a link used again on the same session. A link is kept by a hash
 * of its signature (the signature itself would be a valid link's last part), with its returnUrl,
 * until both the link and its session have expired.
 */

/** Rows of expired links deleted by one remembering, so the table never outgrows the links alive. */
const PRUNE_BATCH = 100;

const SESSION_OF_LINK = statement<[hash: string], string>(
  "SELECT session_id FROM loop_start_links WHERE signature_hash = ?",
  (row) => text(row.session_id),
);
const RETURN_URL_OF_SESSION = statement<[sessionId: string], string | null>(
  "SELECT return_url FROM loop_start_links WHERE session_id = ?",
  (row) => nullable(text)(row.return_url),
);
const REMEMBER_LINK = command<[hash: string, sessionId: string, returnUrl: string | null, expiresAt: string]>(
  "INSERT INTO loop_start_links (signature_hash, session_id, return_url, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (signature_hash) DO NOTHING",
);
const PRUNE_LINKS = command<[before: string, limit: number]>(
  "DELETE FROM loop_start_links WHERE signature_hash IN (SELECT signature_hash FROM loop_start_links WHERE expires_at < ? LIMIT ?)",
);

/** The key a start link is remembered by: SHA-256 of its signature, hex. */
export function startLinkKey(signature: string): string {
  return createHash("sha256").update(signature).digest("hex");
}

/** The session a start link started, if it did. */
export function* sessionOfStartLink(key: string): Program<string | undefined> {
  return yield* first(SESSION_OF_LINK, key);
}

/** The returnUrl of the start link that started a session, if one did and named one. */
export function* startLinkReturnUrl(sessionId: string): Program<string | undefined> {
  return (yield* first(RETURN_URL_OF_SESSION, sessionId)) ?? undefined;
}

/**
 * Remembers that a start link started `sessionId` until `expiresAt` (and forgets links expired
 * before `now`); when another request remembered the link first, its session wins and is returned.
 */
export function* rememberStartLink(
  link: { readonly key: string; readonly sessionId: string; readonly returnUrl: string | undefined },
  expiresAt: Date,
  now: Date,
): Program<string> {
  yield* execute(PRUNE_LINKS, now.toISOString(), PRUNE_BATCH);
  yield* execute(REMEMBER_LINK, link.key, link.sessionId, link.returnUrl ?? null, expiresAt.toISOString());
  return (yield* first(SESSION_OF_LINK, link.key)) ?? link.sessionId;
}
