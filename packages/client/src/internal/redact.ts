/** What a redacted value is replaced with. */
export const REDACTED = "[REDACTED]";

/** Headers that carry credentials: never logged or put in an error as they are. */
const credentialHeaders = new Set([
  "eq-partner-access-key",
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
]);

/** Whether a header carries credentials. */
export function isCredentialHeader(name: string): boolean {
  return credentialHeaders.has(name.toLowerCase());
}

/** A plain copy of `headers` with every credential header's value replaced by {@link REDACTED}. */
export function redactHeaders(headers: Headers): Record<string, string> {
  const redacted: Record<string, string> = {};
  headers.forEach((value, name) => {
    redacted[name] = isCredentialHeader(name) ? REDACTED : value;
  });
  return redacted;
}

/**
 * Replaces every occurrence of each secret in `text` with {@link REDACTED}: applied to all
 * text from outside (server messages, runtime error messages) before it goes into an error
 * message or a log line, in case a server or proxy echoes the key back.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) {
    // A secret of a few characters would blank out ordinary words; real keys are far longer.
    if (secret.length >= 4) scrubbed = scrubbed.split(secret).join(REDACTED);
  }
  return scrubbed;
}
