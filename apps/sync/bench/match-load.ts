/**
 * The load generator of match-http.bench.ts, in a process of its own so its CPU does not count
 * against sds-sync: autocannon POSTs the given bodies in turn to `/v1/match` and sends back the
 * summary over IPC.
 */
import autocannon from "autocannon";

/** What the benchmark sends this process. */
export interface LoadCommand {
  readonly url: string;
  readonly token: string;
  readonly bodies: readonly string[];
  readonly connections: number;
  readonly seconds: number;
}

/** What this process answers. */
export interface LoadReport {
  readonly requestsPerSecond: number;
  readonly requests: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
}

process.once("message", (command: LoadCommand) => {
  let next = 0;
  const instance = autocannon(
    {
      url: command.url,
      connections: command.connections,
      duration: command.seconds,
      headers: { authorization: `Bearer ${command.token}`, "content-type": "application/json" },
      requests: [
        {
          method: "POST",
          setupRequest: (request) => {
            const body = command.bodies[next % command.bodies.length] ?? "{}";
            next += 1;
            return { ...request, body };
          },
        },
      ],
    },
    (error, result) => {
      if (error) throw error;
      const report: LoadReport = {
        requestsPerSecond: result.requests.average,
        requests: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors,
        latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
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
