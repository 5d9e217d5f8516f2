import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built binary: the tests run what users run. */
export const sdsBinary = fileURLToPath(new URL("../../dist/sds.js", import.meta.url));

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
  /** Give up after this long. @default 15000 */
  readonly timeoutMs?: number;
  /** Type `input` once the output shows `after` (a prompt), as a person would; stdin stays open until then. */
  readonly answer?: { readonly after: string; readonly input: string };
}

/**
 * Runs the built `sds` with piped stdio (so not on a terminal) and a clean environment: no
 * SDS_* variable of the machine running the tests leaks in.
 */
export function runSds(args: readonly string[], home: TestHome, options: RunOptions = {}): Promise<SdsResult> {
  return runProcess(process.execPath, [sdsBinary, ...args], home, options);
}

/**
 * Runs the built `sds` on a pseudo-terminal through util-linux `script`, as a user at a
 * terminal would: stdout, stderr and stdin are all the terminal (so their output is merged,
 * with `\r\n` line ends turned into `\n`). The terminal is 120 columns wide.
 */
export async function runSdsOnTerminal(
  args: readonly string[],
  home: TestHome,
  options: RunOptions & { readonly columns?: number } = {},
): Promise<SdsResult> {
  const command = `stty cols ${options.columns ?? 120} rows 40 2>/dev/null; exec ${[process.execPath, sdsBinary, ...args].map(shellQuote).join(" ")}`;
  const result = await runProcess("script", ["-qefc", command, "/dev/null"], home, options);
  return { ...result, stdout: result.stdout.replaceAll("\r\n", "\n") };
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

/** Starts the built `sds` with piped stdio and returns at once, for commands that run until stopped. */
export function startSds(args: readonly string[], home: TestHome, options: RunOptions = {}): StartedSds {
  let handle: ProcessHandle | undefined;
  const result = runProcess(process.execPath, [sdsBinary, ...args], home, options, (started) => (handle = started));
  // runProcess spawns synchronously, inside the Promise executor, so the handle is set by now.
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
      env: {
        PATH: process.env.PATH,
        HOME: home.path,
        XDG_CONFIG_HOME: home.configPath,
        TERM: "xterm-256color",
        ...options.env,
      },
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
    }, options.timeoutMs ?? 15_000);
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
