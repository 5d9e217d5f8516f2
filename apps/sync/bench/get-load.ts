/**
 * The load generator of list-http.bench.ts, in a process of its own so its CPU does not count
 * against the servers measured: autocannon GETs one URL and sends back the summary over IPC.
 */
import autocannon from "autocannon";

/** What the benchmark sends this process. */
export interface GetLoadCommand {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly connections: number;
  readonly seconds: number;
}

/** What this process answers. */
export interface GetLoadReport {
  readonly requestsPerSecond: number;
  readonly requests: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number };
  readonly bytesPerSecond: number;
}

process.once("message", (command: GetLoadCommand) => {
  const instance = autocannon(
    { url: command.url, connections: command.connections, duration: command.seconds, headers: { ...command.headers } },
    (error, result) => {
      if (error) throw error;
      const report: GetLoadReport = {
        requestsPerSecond: result.requests.average,
        requests: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors,
        latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
        bytesPerSecond: result.throughput.average,
      };
      process.send?.(report, () => {
        process.exit(0);
      });
    },
  );
  process.once("disconnect", () => {
    instance.stop();
  });
});
