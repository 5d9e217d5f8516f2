// The formats of `sds export`, apart from the writer: the command's help needs them, and the
// writer reads the survey schema (zod), which help must not load.

/** The formats of `sds export`. */
export const exportFormats = ["ndjson", "json", "csv"] as const;
/** One of {@link exportFormats}. */
export type ExportFormat = (typeof exportFormats)[number];

/** The format an `--out` file's extension implies, if any. */
export function formatFromExtension(path: string): ExportFormat | undefined {
  const extension = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  if (extension === "json") return "json";
  if (extension === "csv") return "csv";
  if (extension === "ndjson" || extension === "jsonl") return "ndjson";
  return undefined;
}
