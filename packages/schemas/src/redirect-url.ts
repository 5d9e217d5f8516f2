import { z } from "zod";

/** Longest URL accepted in an update body: what common browsers and proxies pass through. */
export const MAX_REDIRECT_URL_LENGTH = 2048;

/**
 * Whether `value` is an absolute http(s) URL with a host. Placeholders in the query such as
 * `[%RID%]` or `{rid}` are accepted: the WHATWG parser leaves them alone.
 */
export function isAbsoluteHttpUrl(value: string): boolean {
  if (value.trim() !== value || /\s/.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}

/** One redirect or S2S target URL of an update body. */
export const RedirectUrl = z
  .string()
  .max(MAX_REDIRECT_URL_LENGTH, `URL longer than ${MAX_REDIRECT_URL_LENGTH} characters`)
  .refine(isAbsoluteHttpUrl, "expected an absolute http or https URL")
  // No `format: "uri"`: placeholders such as [%RID%] are not RFC 3986, and the OpenAPI document
  // must accept every body this schema accepts.
  .meta({ description: "Absolute http or https URL; placeholders such as [%RID%] or {rid} allowed in the query" });
