import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The service's entry point, run from source so the tests need no prior build. */
const mainPath = fileURLToPath(new URL("../src/main.ts", import.meta.url));

/** sds-sync running as a child process. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  /** Resolves with the API's base URL once the service logs that it listens. */
  readonly url: Promise<string>;
  /** Every line written to stdout and stderr so far. */
  readonly output: string[];
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
}

/** Options of {@link spawnService}. */
export interface SpawnServiceOptions {
  /** The program (and its first arguments) to run instead of node src/main.ts from source, such as an installed bin. */
  readonly command?: readonly [string, ...string[]];
  /** Working directory. @default this process's */
  readonly cwd?: string;
}

/** Starts `node src/main.ts [args]` (or `command [args]`) with the given environment (added to a minimal one). */
export function spawnService(
  env: Readonly<Record<string, string>>,
  args: readonly string[] = [],
  options: SpawnServiceOptions = {},
): ServiceProcess {
  const [program, ...leading] = options.command ?? [process.execPath, "--conditions=@sds/source", mainPath];
  const child = spawn(program, [...leading, ...args], {
    env: { PATH: process.env.PATH ?? "", PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  const output: string[] = [];
  let resolveUrl: (url: string) => void = () => undefined;
  let rejectUrl: (error: Error) => void = () => undefined;
  const url = new Promise<string>((resolve, reject) => {
    resolveUrl = resolve;
    rejectUrl = reject;
  });
  // Awaited only by tests that expect the service to listen; the others must not see an unhandled rejection.
  url.catch(() => undefined);
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) {
      output.push(line);
      const listening = /"url":"(http:\/\/[^"]+)".*"msg":"sds-sync listening"/.exec(line);
      if (listening?.[1]) resolveUrl(listening[1]);
    }
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => {
      rejectUrl(new Error(`sds-sync exited (code ${code}, signal ${signal}) before listening:\n${output.join("\n")}`));
      resolve({ code, signal });
    });
  });
  return { child, url, output, exited };
}
