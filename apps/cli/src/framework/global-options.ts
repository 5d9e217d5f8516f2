import type { OptionSpecs } from "./option-spec.ts";
import { UsageError } from "./errors.ts";

/** The output formats of every command that prints data. */
export const outputFormats = ["table", "json", "ndjson", "csv"] as const;
/** One of {@link outputFormats}. */
export type OutputFormat = (typeof outputFormats)[number];

/** Options every command accepts, wherever they appear on the command line. */
export const globalOptionSpecs = {
  "base-url": { type: "string", valueName: "URL", description: "API base URL, ending in /api/v1 (env SDS_BASE_URL)" },
  profile: {
    type: "string",
    valueName: "NAME",
    description: 'saved profile to use (env SDS_PROFILE; default "default")',
  },
  "api-key-stdin": {
    type: "boolean",
    description: "read the API key from standard input (else SDS_API_KEY, else the profile)",
  },
  output: {
    type: "string",
    short: "o",
    valueName: "FORMAT",
    choices: outputFormats,
    description: "table, json, ndjson or csv (default: table on a terminal, json otherwise)",
  },
  json: { type: "boolean", description: "same as --output json" },
  "raw-csv": {
    type: "boolean",
    description:
      "write CSV cells as they are: no ' before cells starting with = + - @ (for programs, not spreadsheets)",
  },
  color: {
    type: "boolean",
    negatable: true,
    description: "--color forces colours, --no-color turns them off (else NO_COLOR, FORCE_COLOR, the terminal)",
  },
  timeout: { type: "string", valueName: "SECONDS", description: "time limit per HTTP request (default 30)" },
  debug: { type: "boolean", description: "print the request trace and error details to stderr (key redacted)" },
  help: { type: "boolean", short: "h", description: "show help" },
  version: { type: "boolean", short: "V", description: "print the version" },
} as const satisfies OptionSpecs;

/** The long name of a global option, such as `"base-url"`. */
export type GlobalOptionName = keyof typeof globalOptionSpecs;

/** The global options of commands that never call the service. */
export const localGlobalOptions: readonly GlobalOptionName[] = ["output", "json", "color", "debug", "help"];

/** The global options after parsing and checking. */
export interface GlobalOptions {
  readonly baseUrl: string | undefined;
  readonly profile: string | undefined;
  readonly apiKeyStdin: boolean;
  /** The format asked for with `--output`; `undefined` picks by whether stdout is a terminal. */
  readonly output: OutputFormat | undefined;
  /** `--raw-csv`: CSV cells exactly as the data has them, formulas not defused. */
  readonly rawCsv: boolean;
  /** Per-request time limit in milliseconds. */
  readonly timeoutMs: number | undefined;
  readonly debug: boolean;
}

/** Reads {@link GlobalOptions} out of the values parseArgs returned. @throws UsageError on a bad value. */
export function readGlobalOptions(values: Readonly<Record<string, unknown>>): GlobalOptions {
  const timeout = values.timeout as string | undefined;
  let timeoutMs: number | undefined;
  if (timeout !== undefined) {
    const seconds = Number(timeout);
    if (timeout.trim() === "" || !Number.isFinite(seconds) || seconds <= 0) {
      throw new UsageError(`--timeout must be a positive number of seconds, got "${timeout}"`);
    }
    timeoutMs = Math.round(seconds * 1000);
  }
  const output = values.output as OutputFormat | undefined;
  if (values.json === true && output !== undefined && output !== "json") {
    throw new UsageError(`--json and --output ${output} ask for different formats; pass one`);
  }
  return {
    baseUrl: values["base-url"] as string | undefined,
    profile: values.profile as string | undefined,
    apiKeyStdin: values["api-key-stdin"] === true,
    output: values.json === true ? "json" : output,
    rawCsv: values["raw-csv"] === true,
    timeoutMs,
    debug: values.debug === true,
  };
}
