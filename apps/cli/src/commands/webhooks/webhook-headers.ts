/*
 * The three headers of a Standard Webhooks request, from flags or from a header block as a
 * receiver logs it or `curl -D` saves it.
 */

/** The headers `sds webhooks verify` needs, by their lower-case names. */
export const webhookHeaderNames = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;
/** One of {@link webhookHeaderNames}. */
export type WebhookHeaderName = (typeof webhookHeaderNames)[number];

/**
 * The webhook headers of a header block: one `Name: value` a line (any case, `\r\n` or `\n`);
 * a request or status line (`POST /hook HTTP/1.1`) and other headers are skipped. A header
 * given twice keeps its last value, as the block would be read top to bottom.
 */
export function parseWebhookHeaders(text: string): Map<WebhookHeaderName, string> {
  const found = new Map<WebhookHeaderName, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const known = webhookHeaderNames.find((header) => header === name);
    if (known !== undefined) found.set(known, line.slice(colon + 1).trim());
  }
  return found;
}
