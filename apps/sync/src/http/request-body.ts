import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import { errorReply, type Reply } from "./respond.ts";

/** Largest JSON body the loop's routes accept: a respondent's answers fit many times over. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Largest JSON body of a batch route (a history import, a reconciliation): 1,000 lines with long ids. */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

/** A parsed body, or the reply that refuses it. */
export type BodyResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reply: Reply };

/**
 * Reads a JSON request body of at most `maxBytes` ({@link MAX_BODY_BYTES} unless a batch route says more) and checks it against `schema`:
 * 413 when larger (reading stops there), 415 when not JSON, 400 naming every problem when
 * malformed or invalid.
 */
export async function readJsonBody<T>(
  incoming: IncomingMessage,
  schema: z.ZodType<T>,
  maxBytes: number = MAX_BODY_BYTES,
): Promise<BodyResult<T>> {
  const type = incoming.headers["content-type"] ?? "application/json";
  if (!/^application\/(.+\+)?json\b/i.test(type))
    return refuse(415, "unsupported_media_type", "the body must be JSON (Content-Type: application/json)");
  const body = await readBodyText(incoming, maxBytes);
  if (!body.ok) return body;
  let json: unknown;
  try {
    json = JSON.parse(body.value);
  } catch {
    return refuse(400, "bad_request", "the body is not valid JSON");
  }
  // JSON.parse makes `"__proto__"` an own key, but zod (and any object spread) drops it without
  // a word: a body naming it would be answered as if the key were absent. Refuse it instead.
  const shape = inspectShape(json);
  if (shape === "too-deep")
    return refuse(400, "bad_request", `the body must not nest deeper than ${MAX_BODY_DEPTH} levels`);
  if (shape === "proto-key") return refuse(400, "bad_request", 'the body must not use "__proto__" as a key');
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.length > 0 ? issue.path.join(".") : "body"}: ${issue.message}`,
    );
    return { ok: false, reply: errorReply(400, "bad_request", problems.join("; ")) };
  }
  return { ok: true, value: parsed.data };
}

/**
 * Reads an HTML form's body (`application/x-www-form-urlencoded`, at most `maxBytes`): 413 when
 * larger, 415 when of another type.
 */
export async function readFormBody(
  incoming: IncomingMessage,
  maxBytes: number = MAX_BODY_BYTES,
): Promise<BodyResult<URLSearchParams>> {
  const type = incoming.headers["content-type"] ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type))
    return refuse(
      415,
      "unsupported_media_type",
      "the body must be a form (Content-Type: application/x-www-form-urlencoded)",
    );
  const body = await readBodyText(incoming, maxBytes);
  return body.ok ? { ok: true, value: new URLSearchParams(body.value) } : body;
}

/** A body as UTF-8 text, reading no further than `maxBytes`. */
async function readBodyText(incoming: IncomingMessage, maxBytes: number): Promise<BodyResult<string>> {
  const declared = Number(incoming.headers["content-length"] ?? 0);
  if (declared > maxBytes) return refuse(413, "payload_too_large", `the body must be at most ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) return refuse(413, "payload_too_large", `the body must be at most ${maxBytes} bytes`);
    chunks.push(buffer);
  }
  return { ok: true, value: Buffer.concat(chunks).toString("utf8") };
}

/** The deepest nesting of arrays and objects a body may have: every body the routes take is a few levels deep. */
export const MAX_BODY_DEPTH = 32;

/**
 * Walks a parsed JSON value without recursion (a 64 KiB body of `[[[[…` is 65,536 levels: a
 * recursive walk overflows the stack): too deep, an own `__proto__` key somewhere, or fine.
 */
function inspectShape(value: unknown): "too-deep" | "proto-key" | undefined {
  const stack: { readonly value: unknown; readonly depth: number }[] = [{ value, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const current = item.value;
    if (typeof current !== "object" || current === null) continue;
    if (item.depth >= MAX_BODY_DEPTH) return "too-deep";
    if (!Array.isArray(current) && Object.hasOwn(current, "__proto__")) return "proto-key";
    for (const child of Object.values(current)) stack.push({ value: child, depth: item.depth + 1 });
  }
  return undefined;
}

function refuse(status: number, code: string, message: string): BodyResult<never> {
  return { ok: false, reply: errorReply(status, code, message) };
}
