/*
 * The V8 heap sizing sds-sync runs with unless the operator chose their own. On a host with
 * memory to spare V8 lets the young generation grow to 128 MB (measured at 100,000 surveys);
 * semi-spaces of at most 16 MB keep it far smaller at the cost of more frequent scavenges. The old generation is not capped here: a cap
 * below the live heap stops the process (FATAL "JavaScript heap out of memory"), and the live heap
 * grows with the inventory (at 100,000 surveys, with the respondent loop's matcher holding every
 * live survey, `--max-old-space-size=256` stops the process at the end of the first sync). The
 * bin re-executes itself in place with the flag (process.execve: same process, so no parent is
 * left to forward signals or to orphan a child), so that an operator needs no flags. Imports
 * nothing: main.ts loads it before the version check.
 */

/** The flag added when the operator set no young-generation limit of their own. */
const SEMI_SPACE_FLAG = "--max-semi-space-size=16";

/** Flags that set the young generation's limit (`--max-heap-size` sizes both generations). */
const SEMI_SPACE_NAMES = ["--max-semi-space-size", "--max-heap-size"];

function flagNames(flags: readonly string[]): Set<string> {
  // V8 accepts `--max_semi_space_size` as well as `--max-semi-space-size`, with `=value` or not.
  return new Set(flags.map((flag) => (flag.split("=")[0] ?? "").replaceAll("_", "-")));
}

/**
 * The heap flags to add to a process started with `execArgv` and `NODE_OPTIONS`: none that the
 * operator already set in either (theirs win), so an empty list means "run as is".
 */
export function missingHeapFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = flagNames([...execArgv, ...(nodeOptions ?? "").split(/\s+/).filter(Boolean)]);
  return SEMI_SPACE_NAMES.some((name) => given.has(name)) ? [] : [SEMI_SPACE_FLAG];
}
