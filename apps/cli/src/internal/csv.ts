/**
 * One CSV field per RFC 4180: quoted when it holds a comma, quote, line break or edge spaces,
 * with quotes doubled.
 */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One CSV line (ending in CRLF, as RFC 4180 has it). */
export function csvLine(values: readonly string[]): string {
  return values.map(csvField).join(",") + "\r\n";
}
