/**
 * The `/v1/sync/status` reader of loop-status.bench.ts, in a process of its own so reading (and
 * timing) the replies costs sds-sync nothing: either a number of calls one after another, or
 * status-page tabs that each ask every `intervalMs` (as the page does) for a while, starting
 * spread over the first interval. Each latency is from the request to the last byte of the
 * reply; the body is not parsed.
 */

/** What the benchmark sends this process. */
export type StatusCommand =
  | { readonly mode: "sequential"; readonly url: string; readonly token: string; readonly calls: number }
  | {
      readonly mode: "tabs";
      readonly url: string;
      readonly token: string;
      readonly tabs: number;
      readonly intervalMs: number;
      readonly seconds: number;
    };

/** What this process answers. */
export interface StatusReport {
  readonly calls: number;
  readonly failures: number;
  readonly bytes: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
}

/** The value at quantile `q` of ascending `sorted` (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

async function timedCall(
  url: string,
  token: string,
  into: { latencies: number[]; failures: number; bytes: number },
): Promise<void> {
  const started = performance.now();
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.arrayBuffer();
    into.latencies.push(performance.now() - started);
    into.bytes = body.byteLength;
    if (response.status !== 200) into.failures += 1;
  } catch {
    into.failures += 1;
  }
}

async function run(command: StatusCommand): Promise<StatusReport> {
  const seen = { latencies: [] as number[], failures: 0, bytes: 0 };
  if (command.mode === "sequential") {
    for (let call = 0; call < command.calls; call += 1) await timedCall(command.url, command.token, seen);
  } else {
    const { tabs, intervalMs } = command;
    const until = performance.now() + command.seconds * 1000;
    const tab = async (index: number) => {
      await new Promise((resolve) => setTimeout(resolve, (index * intervalMs) / tabs));
      while (performance.now() < until) {
        const next = performance.now() + intervalMs;
        await timedCall(command.url, command.token, seen);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
      }
    };
    await Promise.all(Array.from({ length: tabs }, (_, index) => tab(index)));
  }
  const sorted = seen.latencies.toSorted((a, b) => a - b);
  return {
    calls: sorted.length,
    failures: seen.failures,
    bytes: seen.bytes,
    latencyMs: {
      p50: round(quantile(sorted, 0.5)),
      p99: round(quantile(sorted, 0.99)),
      max: round(sorted.at(-1) ?? Number.NaN),
    },
  };
}

// Run as a child (fork): one command in, one report out.
if (process.send !== undefined) {
  process.once("message", (command: StatusCommand) => {
    void run(command).then((report) => process.send?.(report, () => process.exit(0)));
  });
}
