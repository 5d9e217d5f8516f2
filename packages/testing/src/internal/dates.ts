/** ISO 8601 UTC with milliseconds, as the spec gives `LastUpdatedOnUTC`: `2026-01-15T12:00:00.000Z`. */
export function formatMillis(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** ISO 8601 UTC to the second, as start and end dates usually come: `2026-01-15T12:00:00Z`. */
export function formatSeconds(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace(".000Z", "Z");
}
