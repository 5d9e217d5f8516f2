import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { commandCatalog } from "../../src/commands/registry.ts";
import type { CliIo, OutputStream } from "../../src/framework/io.ts";
import { runCli } from "../../src/framework/run-cli.ts";

/** The built binary, what users run: the system tier's tests (`*.system.test.ts`) run it. */
export const sdsBinary = fileURLToPath(new URL("../../dist/sds.js", import.meta.url));

/** The entry point from source, for a process that needs no build (the fast tier's {@link startSds}). */
const sdsSource = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

/** What one run of `sds` did. */
export interface SdsResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of {@link runSds}. */
export interface RunOptions {
  /** Environment variables on top of a clean one (PATH, HOME and XDG_CONFIG_HOME of the test). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Written to standard input, which is then closed. */
  readonly input?: string;
  /**
   * Give up after this long. @default no limit in-process (the test's own timeout catches a
   * hang); 60000 for a process, which is then killed
   */
  readonly timeoutMs?: number;
  /** Type `input` once the output shows `after` (a prompt), as a person would; stdin stays open until then. */
  readonly answer?: { readonly after: string; readonly input: string };
}

/**
 * Runs `sds` from source in this process (its `runCli`, as the entry point calls it) with
 * piped stdio (so not on a terminal) and a clean environment: no SDS_* variable of the machine
 * running the tests leaks in. What only a process does (module loading, EPIPE, signals, a real
 * pseudo-terminal) is tested against the built binary in the system tier ({@link runBuiltSds}).
 */
export function runSds(args: readonly string[], home: TestHome, options: RunOptions = {}): Promise<SdsResult> {
  return oneAtATime(() => runInProcess(args, home, options, undefined));
}

/**
 * Runs `sds` from source in this process as on a terminal: stdout, stderr and stdin are one
 * terminal 120 columns wide (so their output is merged), whose line discipline echoes what is
 * typed unless the command put it in raw mode, as a pseudo-terminal would.
 */
export function runSdsOnTerminal(
  args: readonly string[],
  home: TestHome,
  options: RunOptions & { readonly columns?: number } = {},
): Promise<SdsResult> {
  return oneAtATime(() => runInProcess(args, home, options, { columns: options.columns ?? 120 }));
}

let lastRun: Promise<unknown> = Promise.resolve();

/**
 * Runs in-process commands one after the other, as separate processes would not collide: a
 * process's files are named for its pid (a profile's temporary file), which runs in one process share.
 */
function oneAtATime<T>(run: () => Promise<T>): Promise<T> {
  const result = lastRun.then(run, run);
  lastRun = result.catch(() => undefined);
  return result;
}

/**
 * Runs the built `sds` with piped stdio and a clean environment, as a user's shell would: for
 * the system tier's tests of what only the built binary shows.
 */
export function runBuiltSds(args: readonly string[], home: TestHome, options: RunOptions = {}): Promise<SdsResult> {
  return runProcess(process.execPath, [sdsBinary, ...args], home, options);
}

/**
 * Runs the built `sds` on a pseudo-terminal through util-linux `script`, as a user at a
 * terminal would: stdout, stderr and stdin are all the terminal (so their output is merged,
 * with `\r\n` line ends turned into `\n`). The terminal is 120 columns wide.
 */
export async function runBuiltSdsOnTerminal(
  args: readonly string[],
  home: TestHome,
  options: RunOptions & { readonly columns?: number } = {},
): Promise<SdsResult> {
  const command = `stty cols ${options.columns ?? 120} rows 40 2>/dev/null; exec ${[process.execPath, sdsBinary, ...args].map(shellQuote).join(" ")}`;
  const result = await runProcess("script", ["-qefc", command, "/dev/null"], home, options);
  return { ...result, stdout: result.stdout.replaceAll("\r\n", "\n") };
}

/** The environment `sds` sees: a clean one, the test's HOME and config home, and `env` on top. */
function environment(home: TestHome, env: RunOptions["env"]): NodeJS.ProcessEnv {
  const merged: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: home.path,
    XDG_CONFIG_HOME: home.configPath,
    TERM: "xterm-256color",
    ...env,
  };
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined));
}

/** A stand-in for stdout or stderr that keeps what is written. */
function capture(append: (text: string) => void, terminal: { readonly columns: number } | undefined): OutputStream {
  return {
    write: (chunk: string) => {
      append(chunk);
      return true;
    },
    once: () => undefined,
    ...(terminal === undefined ? {} : { isTTY: true, columns: terminal.columns }),
  };
}

async function runInProcess(
  args: readonly string[],
  home: TestHome,
  options: RunOptions,
  terminal: { readonly columns: number } | undefined,
): Promise<SdsResult> {
  let stdout = "";
  let stderr = "";
  let rawMode = false;
  let answered = false;
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  /** Typing on the terminal: the line discipline echoes it (Enter as a new line) unless in raw mode. */
  const type = (text: string) => {
    if (terminal !== undefined && !rawMode) stdout += text.replaceAll("\r", "\n");
    stdin.end(text);
  };
  const appendStdout = (text: string) => {
    stdout += text;
    if (options.answer !== undefined && !answered && stdout.includes(options.answer.after)) {
      answered = true;
      // Typed after the prompt is shown, as a person would: not inside the write that shows it.
      const { input } = options.answer;
      setImmediate(() => {
        type(input);
      });
    }
  };
  if (terminal !== undefined) {
    stdin.isTTY = true;
    stdin.setRawMode = (mode: boolean) => (rawMode = mode);
  }
  const io: CliIo = {
    stdout: capture(appendStdout, terminal),
    // A terminal is one stream: what goes to stderr shows among stdout's lines.
    stderr: capture(terminal === undefined ? (text) => (stderr += text) : appendStdout, terminal),
    stdin,
    env: environment(home, options.env),
  };
  if (options.answer === undefined) type(options.input ?? "");
  let timer: NodeJS.Timeout | undefined;
  const { timeoutMs } = options;
  const timedOut = new Promise<never>((_, reject) => {
    if (timeoutMs === undefined) return;
    timer = setTimeout(() => {
      reject(
        new Error(`sds ${args.join(" ")} did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    }, timeoutMs);
  });
  try {
    const code = await Promise.race([runCli(args, io, commandCatalog), timedOut]);
    return { code, signal: null, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** A running `sds`: its process, its output so far, and its result once it exits. */
export interface StartedSds {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves once stdout has shown `text`; rejects if the process exits first. */
  waitForOutput(text: string): Promise<void>;
  /** Standard output so far. */
  stdout(): string;
  readonly result: Promise<SdsResult>;
}

/**
 * Starts `sds` from source as a process of its own (no build needed) with piped stdio and
 * returns at once, for commands that run until stopped or are interrupted by a signal.
 */
export function startSds(args: readonly string[], home: TestHome, options: RunOptions = {}): StartedSds {
  let handle: ProcessHandle | undefined;
  const result = runProcess(
    process.execPath,
    ["--conditions=@sds/source", sdsSource, ...args],
    home,
    options,
    (started) => (handle = started),
  );
  // runProcess spawns synchronously, inside the Promise executor, so the handle is set by now.
  if (handle === undefined) throw new Error("sds did not start");
  return { ...handle, result };
}

/** Starts the built `sds` with piped stdio and returns at once: {@link startSds} for the system tier. */
export function startBuiltSds(args: readonly string[], home: TestHome, options: RunOptions = {}): StartedSds {
  let handle: ProcessHandle | undefined;
  const result = runProcess(process.execPath, [sdsBinary, ...args], home, options, (started) => (handle = started));
  if (handle === undefined) throw new Error("sds did not start");
  return { ...handle, result };
}

type ProcessHandle = Omit<StartedSds, "result">;

function runProcess(
  file: string,
  args: readonly string[],
  home: TestHome,
  options: RunOptions,
  onStart?: (handle: ProcessHandle) => void,
): Promise<SdsResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], {
      env: environment(home, options.env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let answered = false;
    const waiters: { text: string; resolve: () => void; reject: (error: Error) => void }[] = [];
    const settleWaiters = () => {
      for (const waiter of [...waiters]) {
        if (!stdout.includes(waiter.text)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    };
    onStart?.({
      child,
      stdout: () => stdout,
      waitForOutput: (text) =>
        new Promise<void>((resolveWait, rejectWait) => {
          waiters.push({ text, resolve: resolveWait, reject: rejectWait });
          settleWaiters();
        }),
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      settleWaiters();
      if (options.answer !== undefined && !answered && stdout.includes(options.answer.after)) {
        answered = true;
        child.stdin.end(options.answer.input);
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`sds ${args.join(" ")} did not finish in time\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      for (const waiter of waiters)
        waiter.reject(
          new Error(
            `sds exited (${String(code ?? signal)}) before printing ${JSON.stringify(waiter.text)}\nstdout: ${stdout}\nstderr: ${stderr}`,
          ),
        );
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.on("error", () => undefined);
    if (options.answer === undefined) child.stdin.end(options.input ?? "");
  });
}

/** A temporary HOME with its own XDG_CONFIG_HOME, so no test sees another's profiles. */
export interface TestHome {
  readonly path: string;
  readonly configPath: string;
  remove(): void;
}

/** Makes a {@link TestHome}; remove it when the test ends. */
export function createTestHome(): TestHome {
  const path = mkdtempSync(join(tmpdir(), "sds-cli-test-"));
  return {
    path,
    configPath: join(path, "config"),
    remove: () => {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** Runs the built `sds` with another Node binary (such as the machine's older one) instead of the one running the tests. */
export function runSdsWithNode(
  node: string,
  args: readonly string[],
  home: TestHome,
  options: RunOptions = {},
): Promise<SdsResult> {
  return runProcess(node, [sdsBinary, ...args], home, options);
}
