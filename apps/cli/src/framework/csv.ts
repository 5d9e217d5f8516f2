/** How CSV fields are written. */
export interface CsvOptions {
  /**
   * Defuse spreadsheet formulas: a field that starts with `=`, `+`, `-`, `@`, a tab or a
   * carriage return gets a leading `'` (and quotes), so a spreadsheet shows it as text instead
   * of running it (OWASP, CSV injection). Numbers such as `-5` or `+1.5` stay as they are: a
   * number cannot run anything, and machine readers keep their values. `sds --raw-csv` turns it off.
   */
  readonly defuseFormulas: boolean;
}

const formulaStart = /^[=+\-@\t\r]/;
const plainNumber = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** `value` as a spreadsheet shows it as text when it could start a formula; unchanged otherwise. */
export function defuseFormula(value: string): string {
  return formulaStart.test(value) && !plainNumber.test(value) ? `'${value}` : value;
}

/**
 * One CSV field per RFC 4180: quoted when it holds a comma, quote, line break or edge spaces,
 * or when it was defused, with quotes doubled.
 */
export function csvField(value: string, options: CsvOptions): string {
  const field = options.defuseFormulas ? defuseFormula(value) : value;
  return field !== value || /[",\r\n]|^\s|\s$/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}

/** One CSV line (ending in CRLF, as RFC 4180 has it). */
export function csvLine(values: readonly string[], options: CsvOptions): string {
  return values.map((value) => csvField(value, options)).join(",") + "\r\n";
}
