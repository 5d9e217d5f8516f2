/*
 * Reading and checking a JSON request body. Each failure names what was wrong so a client
 * developer can fix the request from the error message alone.
 */
import type { z } from "zod";
import { fakeErrorCodes, type FakeErrorCode } from "../fake/constants.ts";

/** The outcome of reading a body: the parsed value, or why it was refused. */
export type BodyResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly errorCode: FakeErrorCode; readonly messages: readonly string[] };

function refuse(
  errorCode: FakeErrorCode,
  ...messages: string[]
): { ok: false; errorCode: FakeErrorCode; messages: string[] } {
  return { ok: false, errorCode, messages };
}

/** Whether a Content-Type header names JSON (`application/json`, any parameters, any case). */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  const mediaType = header.split(";")[0]?.trim().toLowerCase();
  return mediaType === "application/json";
}

/** Reads at most `maxBytes + 1` bytes, so an oversized body is detected without buffering it all. */
async function readLimited(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array | "too-large"> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return "too-large";
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Formats a zod issue as `Field.path: message`, the way `messages` lists them. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "body";
  return `${where}: ${issue.message}`;
}

/**
 * Reads a JSON object body and checks it with `schema`. Checks, in order: Content-Type is
 * application/json, the body is present, not larger than `maxBytes`, valid UTF-8 JSON, an
 * object, and valid for the schema.
 */
export async function readJsonBody<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
  maxBytes: number,
): Promise<BodyResult<z.infer<Schema>>> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return refuse(fakeErrorCodes.unsupportedContentType, "Content-Type must be application/json.");
  }
  if (request.body === null) return refuse(fakeErrorCodes.missingBody, "A JSON request body is required.");
  const bytes = await readLimited(request.body, maxBytes);
  if (bytes === "too-large")
    return refuse(fakeErrorCodes.bodyTooLarge, `The request body is larger than ${maxBytes} bytes.`);
  if (bytes.byteLength === 0) return refuse(fakeErrorCodes.missingBody, "A JSON request body is required.");

  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(bytes));
  } catch (error) {
    return refuse(
      fakeErrorCodes.invalidJson,
      `The request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return refuse(fakeErrorCodes.validationFailed, "The request body must be a JSON object.");
  }
  const result = schema.safeParse(parsed);
  if (!result.success) return refuse(fakeErrorCodes.validationFailed, ...result.error.issues.map(describeIssue));
  return { ok: true, value: result.data };
}
