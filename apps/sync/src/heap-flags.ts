/*
 * The V8 heap sizing sds-sync runs with unless the operator chose their own. Both flags trade a
 * little CPU (more frequent collections) for resident memory, and neither caps the heap: a cap
 * below the live heap stops the process (FATAL "JavaScript heap out of memory"), and the live
 * heap grows with the inventory.
 *
 * - The young generation: on a host with memory to spare V8 lets it grow to 128 MB (measured at
 *   100,000 surveys); semi-spaces of at most 4 MB keep it near 12 MB. A cycle's garbage is
 *   short-lived (list chunks, responses, rows), so scavenges stay cheap.
 * - The old generation's growth: V8 lets it grow to about twice to four times the live heap
 *   before a full collection; `--heap-growing-percent=20` collects once it is 20 % larger, which
 *   at 100,000 surveys (about 100 MB live) keeps it near 120 MB instead of 280 MB.
 *
 * Beside them, one environment variable for glibc's malloc, which holds everything outside the V8
 * heap (SQLite's caches, Buffers, zlib's state):
 *
 * - `MALLOC_ARENA_MAX=2`: glibc gives each thread that allocates an arena of its own, up to eight
 *   per core, and memory freed into one stays with it. Node's helper threads (V8's GC workers,
 *   libuv's pool for files and compression) each keep theirs: two arenas cost 14 MB less at the
 *   100,000-survey peak (205 against 219 MB) and no measurable speed. Ignored where malloc is not
 *   glibc's (musl).
 *
 * The bin re-executes itself in place with them (process.execve: same process, so no parent is
 * left to forward signals or to orphan a child), so that an operator needs no flags. Imports
 * nothing: main.ts loads it before the version check.
 */

interface HeapFlag {
  /** The flag added. */
  readonly flag: string;
  /** Flags by which the operator sets the same limit themselves (theirs win). */
  readonly setBy: readonly string[];
}

const HEAP_FLAGS: readonly HeapFlag[] = [
  // `--max-heap-size` sizes both generations.
  { flag: "--max-semi-space-size=4", setBy: ["--max-semi-space-size", "--max-heap-size"] },
  { flag: "--heap-growing-percent=20", setBy: ["--heap-growing-percent"] },
];

function flagNames(flags: readonly string[]): Set<string> {
  // V8 accepts `--max_semi_space_size` as well as `--max-semi-space-size`, with `=value` or not.
  return new Set(flags.map((flag) => (flag.split("=")[0] ?? "").replaceAll("_", "-")));
}

/** Environment variables the process runs with unless the operator set them. */
const MEMORY_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2" };

/** The memory settings of {@link MEMORY_ENV} missing from `env` (the operator's own value wins, even an empty one). */
export function missingMemoryEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(MEMORY_ENV).filter(([name]) => env[name] === undefined));
}

/**
 * The heap flags to add to a process started with `execArgv` and `NODE_OPTIONS`: none that the
 * operator already set in either (theirs win), so an empty list means "run as is".
 */
export function missingHeapFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = flagNames([...execArgv, ...(nodeOptions ?? "").split(/\s+/).filter(Boolean)]);
  return HEAP_FLAGS.filter(({ setBy }) => !setBy.some((name) => given.has(name))).map(({ flag }) => flag);
}
