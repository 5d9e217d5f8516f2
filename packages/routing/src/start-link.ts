import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { WeakKeyError } from "./errors.ts";
import { computeDigest, constantTimeEqual } from "./internal/digest.ts";

/*
 * Start links: how a supplier sends a respondent into sds-sync's respondent page. The supplier's
 * back end signs `uid`, `languageId` (and perhaps `device`, `returnUrl`) with a time; sds-sync
 * verifies the same bytes. `sig` is HMAC-SHA256 (lowercase hex) with the session secret over the
 * raw query string before `&sig=`, exactly as sent: nothing is re-encoded before checking.
 */

/** The shortest session secret accepted, in characters (256 bits of hex, or more). */
export const MIN_START_LINK_SECRET_LENGTH = 32;

/** How far in the future a start link's `ts` may lie (clocks of two machines disagree a little), in seconds. */
const CLOCK_SKEW_SECONDS = 60;

/** What a start link carries. */
export interface StartLinkInput {
  /** The respondent's id in the supplier's system. */
  readonly uid: string;
  /** The session's language (a LanguageId). */
  readonly languageId: number;
  /** The respondent's device name (`desktop`, `mobile`, `tablet`), when known. */
  readonly device?: string | undefined;
  /** Where the respondent goes after the session: an absolute http(s) URL of the supplier's. */
  readonly returnUrl?: string | undefined;
  /** When the link was made, in Unix seconds. @default now */
  readonly ts?: number | undefined;
}

/** A verified start link's fields. */
export interface StartLink {
  readonly uid: string;
  readonly languageId: number;
  readonly device?: string;
  readonly returnUrl?: string;
  readonly ts: number;
}

/**
 * Why a start link was refused: `missing` (no `sig` at the end), `malformed` (a field missing,
 * repeated or not of its type, or a `sig` that is not 64 hex digits), `mismatch` (the secret
 * does not make that signature: forged or altered), `expired` (older than the allowed age, or
 * dated too far in the future).
 */
export type StartLinkFailureReason = "missing" | "malformed" | "mismatch" | "expired";

/** The answer of {@link verifyStartLink}. */
export type StartLinkVerdict =
  | {
      readonly valid: true;
      readonly link: StartLink;
      /** The signature as received (lowercase hex): a key to remember the link by. */
      readonly signature: string;
    }
  | {
      readonly valid: false;
      readonly reason: StartLinkFailureReason;
      /** A sentence for people; never holds the secret. */
      readonly message: string;
    };

function assertStartLinkSecret(secret: string): void {
  if (secret.length < MIN_START_LINK_SECRET_LENGTH) throw new WeakKeyError(MIN_START_LINK_SECRET_LENGTH);
}

function signature(signed: string, secret: string): Uint8Array {
  return computeDigest("hmac", "sha256", signed, secret);
}

/**
 * Makes a start link's query string (`uid=…&languageId=…[&device=…][&returnUrl=…]&ts=…&sig=…`),
 * or its whole URL when `options.baseUrl` (sds-sync's public URL, where `/s/start` answers) is
 * given. The values are percent-encoded with `encodeURIComponent` and `!'()*` as well, so that
 * browsers send the query unchanged; the signature covers the query as written.
 *
 * @param secret `SYNC_SESSION_SECRET`, at least {@link MIN_START_LINK_SECRET_LENGTH} characters. Never in an error.
 * @throws WeakKeyError when the secret is shorter.
 * @throws RangeError when `languageId` or `ts` is not an integer.
 * @example
 * ```ts
 * const link = signStartLink({ uid: "r-1", languageId: 3 }, process.env.SYNC_SESSION_SECRET ?? "", {
 *   baseUrl: "https://sync.example.com",
 * });
 * // "https://sync.example.com/s/start?uid=r-1&languageId=3&ts=1767225600&sig=5f2c…"
 * ```
 */
export function signStartLink(
  input: StartLinkInput,
  secret: string,
  options: { readonly baseUrl?: string | undefined } = {},
): string {
  assertStartLinkSecret(secret);
  const ts = input.ts ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(input.languageId)) throw new RangeError("languageId must be an integer");
  if (!Number.isSafeInteger(ts) || ts < 0) throw new RangeError("ts must be Unix seconds (an integer)");
  const fields: [string, string][] = [
    ["uid", input.uid],
    ["languageId", String(input.languageId)],
  ];
  if (input.device !== undefined) fields.push(["device", input.device]);
  if (input.returnUrl !== undefined) fields.push(["returnUrl", input.returnUrl]);
  fields.push(["ts", String(ts)]);
  const signed = fields.map(([name, value]) => `${name}=${encodeQueryValue(value)}`).join("&");
  const query = `${signed}&sig=${bytesToHex(signature(signed, secret))}`;
  return options.baseUrl === undefined ? query : `${options.baseUrl.replace(/\/+$/, "")}/s/start?${query}`;
}

/**
 * `encodeURIComponent`, and `!'()*` too: a browser or `fetch` sends an apostrophe in a query as
 * `%27` (the URL standard's query set), so a link must hold it encoded to reach the server as signed.
 */
function encodeQueryValue(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function refused(reason: StartLinkFailureReason, message: string): StartLinkVerdict {
  return { valid: false, reason, message };
}

/** One field of the signed part: exactly once, or (optional ones) not at all. */
function single(params: URLSearchParams, name: string, required: boolean): string | undefined | null {
  const values = params.getAll(name);
  if (values.length > 1) return null;
  if (values.length === 0) return required ? null : undefined;
  return values[0];
}

/**
 * Verifies a start link's raw query string (after `?`, as received): the signature first (over
 * the bytes before `&sig=`, compared in constant time), then the fields, then its age. Names
 * other than the five are covered by the signature and ignored.
 *
 * @param rawQuery The query as sent, not decoded or re-encoded (`request.url.search` without `?`).
 * @param now The time to judge the age by.
 * @param maxAgeSeconds How old a link may be (`SYNC_START_LINK_SECONDS`).
 * @throws WeakKeyError when the secret is shorter than {@link MIN_START_LINK_SECRET_LENGTH}.
 * @example
 * ```ts
 * const verdict = verifyStartLink(url.search.slice(1), secret, new Date(), 600);
 * if (verdict.valid) startSession(verdict.link);
 * ```
 */
export function verifyStartLink(rawQuery: string, secret: string, now: Date, maxAgeSeconds: number): StartLinkVerdict {
  assertStartLinkSecret(secret);
  const query = rawQuery.startsWith("?") ? rawQuery.slice(1) : rawQuery;
  const at = query.lastIndexOf("&sig=");
  if (at < 0) return refused("missing", "the start link has no signature (sig, last)");
  const signed = query.slice(0, at);
  const given = query.slice(at + "&sig=".length);
  if (!/^[0-9a-f]{64}$/i.test(given))
    return refused("malformed", "the start link's sig is not an HMAC-SHA256 in hex (64 digits), or is not last");
  if (!constantTimeEqual(hexToBytes(given.toLowerCase()), signature(signed, secret)))
    return refused(
      "mismatch",
      "the start link's signature does not match: it was not made with this secret, or was altered",
    );
  const params = new URLSearchParams(signed);
  const uid = single(params, "uid", true);
  const languageId = single(params, "languageId", true);
  const ts = single(params, "ts", true);
  const device = single(params, "device", false);
  const returnUrl = single(params, "returnUrl", false);
  if (uid === null || uid === undefined || uid === "" || languageId === null || languageId === undefined)
    return refused("malformed", "the start link needs exactly one uid and one languageId");
  if (!/^-?\d{1,12}$/.test(languageId)) return refused("malformed", "the start link's languageId is not an integer");
  if (ts === null || ts === undefined || !/^\d{1,12}$/.test(ts))
    return refused("malformed", "the start link needs exactly one ts (Unix seconds)");
  if (device === null || returnUrl === null) return refused("malformed", "the start link repeats device or returnUrl");
  const age = now.getTime() / 1000 - Number(ts);
  if (age > maxAgeSeconds) return refused("expired", `the start link is older than ${maxAgeSeconds} seconds`);
  if (age < -CLOCK_SKEW_SECONDS) return refused("expired", "the start link is dated in the future");
  return {
    valid: true,
    link: {
      uid,
      languageId: Number(languageId),
      ts: Number(ts),
      ...(device === undefined ? {} : { device }),
      ...(returnUrl === undefined ? {} : { returnUrl }),
    },
    signature: given.toLowerCase(),
  };
}
