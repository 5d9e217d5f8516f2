/* The formats of a history file: a leaf, so that `sds respondents import --help` loads no checking code. */

/** The formats a history file may be in. */
export const historyFormats = ["csv", "jsonl"] as const;
/** One of {@link historyFormats}. */
export type HistoryFormat = (typeof historyFormats)[number];

/**
 * The format of a history file: `--format` when given, else its extension (`.jsonl`, `.ndjson`
 * or `.csv`), else JSON Lines when its first non-blank character is `{`, else CSV.
 */
export function historyFormatOf(path: string, text: string, asked: HistoryFormat | undefined): HistoryFormat {
  if (asked !== undefined) return asked;
  if (/\.(jsonl|ndjson)$/i.test(path)) return "jsonl";
  if (/\.csv$/i.test(path)) return "csv";
  return text
    .replace(/^\uFEFF/, "")
    .trimStart()
    .startsWith("{")
    ? "jsonl"
    : "csv";
}
