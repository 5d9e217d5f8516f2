/**
 * The flood of gate-flood.bench.ts, in a process of its own so its CPU does not count against
 * the service: autocannon POSTs `/v1/sessions` (a new uid each time, one client address) and
 * sends back the summary over IPC.
 */
import autocannon from "autocannon";

/** What the benchmark sends this process. */
export interface FloodCommand {
  readonly url: string;
  readonly token: string;
  /** The client address every start claims. */
  readonly ip: string;
  readonly connections: number;
  readonly seconds: number;
}

/** What this process answers: starts sent, by answer. */
export interface FloodReport {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly refused: number;
  readonly started: number;
  readonly errors: number;
}

process.once("message", (command: FloodCommand) => {
  let uid = 0;
  let refused = 0;
  let started = 0;
  const instance = autocannon(
    {
      url: `${command.url}/v1/sessions`,
      connections: command.connections,
      duration: command.seconds,
      method: "POST",
      headers: { authorization: `Bearer ${command.token}`, "content-type": "application/json" },
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({ uid: `flood-${process.pid}-${uid++}`, languageId: 3, ip: command.ip }),
          }),
        },
      ],
    },
    (error, result) => {
      if (error) throw error;
      const report: FloodReport = {
        requests: result.requests.total,
        requestsPerSecond: result.requests.average,
        refused,
        started,
        errors: result.errors,
      };
      process.send?.(report, () => {
        process.exit(0);
      });
    },
  );
  instance.on("response", (_client, statusCode) => {
    if (statusCode === 403) refused++;
    else if (statusCode === 201) started++;
  });
  process.once("disconnect", () => {
    instance.stop();
  });
});
