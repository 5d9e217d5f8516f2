/**
 * The load of session-http.bench.ts, in a process of its own so that the clients' CPU (fetch,
 * JSON) does not count against sds-sync's, nor share its event loop: walks `connections` clients
 * through sessions for `seconds` (session-walk.ts) and sends back what they did over IPC.
 */
import { Latencies, walkSessions, type WalkTarget } from "./session-walk.ts";

/** What the benchmark sends this process. */
export interface WalkLoadCommand {
  readonly target: WalkTarget;
  readonly connections: number;
  readonly seconds: number;
  /** Makes the uids of this load unique across loads and stores. */
  readonly prefix: string;
}

/** What this process answers. */
export interface WalkLoadReport {
  readonly steps: number;
  readonly sessions: number;
  readonly errors: number;
  readonly seconds: number;
  readonly p50: number;
  readonly p99: number;
  /** CPU seconds (user and system) this process used while walking. */
  readonly cpuSeconds: number;
}

process.once("message", (command: WalkLoadCommand) => {
  const latencies = new Latencies();
  const cpuBefore = process.cpuUsage();
  void walkSessions(command.target, command.connections, performance.now() + command.seconds * 1000, command.prefix, {
    before: () => undefined,
    after: (_kind, milliseconds) => {
      latencies.add(milliseconds);
    },
  }).then((counts) => {
    const cpu = process.cpuUsage(cpuBefore);
    const report: WalkLoadReport = {
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      ...counts,
      steps: latencies.count,
      p50: latencies.percentile(0.5),
      p99: latencies.percentile(0.99),
    };
    process.send?.(report, () => {
      process.exit(0);
    });
  });
});
