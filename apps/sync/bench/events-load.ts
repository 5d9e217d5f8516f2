/**
 * The load of events.bench.ts, in a process of its own so making the requests (and reading the
 * events back) costs sds-sync nothing: `workers` respondents each take an entry link
 * (`POST /v1/entry-links`) and report its outcome (`GET /v1/outcomes/complete`, unsigned), one
 * after another, for `seconds`; or, with `flood`, `workers` connections send nothing but outcome
 * calls (fresh tokens, no entry link: orphans, recorded all the same) as fast as they are
 * answered. Meanwhile `/v1/sync/status` is read every 100 ms, and, when a NATS server is given, a
 * core subscription on `<prefix>.outcomes.>` takes each event and measures its lag: from the
 * outcome's `receivedAt` to its arrival here.
 */
import { connect } from "@nats-io/transport-node";

/** The value at quantile `q` of ascending `sorted` (nearest rank). Not imported from status-client.ts: importing it would start that script's own message handler. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/** What the benchmark sends this process. */
export interface EventsLoadCommand {
  readonly url: string;
  readonly token: string;
  readonly surveyIds: readonly number[];
  readonly workers: number;
  readonly seconds: number;
  /** A run's tokens are unique across runs. */
  readonly tokenPrefix: string;
  readonly nats?: { readonly url: string; readonly subjectPrefix: string };
  /** Outcome calls only, as fast as answered (no entry links). */
  readonly flood?: boolean;
}

/** What this process answers. */
export interface EventsLoadReport {
  readonly entryLinks: number;
  readonly outcomes: number;
  readonly failures: number;
  readonly seconds: number;
  readonly statusP99Ms: number;
  /** Events received from NATS while the load ran and for a moment after, with their lag. */
  readonly events: number;
  /** Seconds from the start of the load to the last event's arrival (0 without NATS). */
  readonly eventsSeconds: number;
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
}

async function run(command: EventsLoadCommand): Promise<EventsLoadReport> {
  const headers = { authorization: `Bearer ${command.token}`, "content-type": "application/json" };
  const lags: number[] = [];
  let lastEventAt = 0;
  const subscription = command.nats
    ? (await connect({ servers: command.nats.url })).subscribe(`${command.nats.subjectPrefix}.outcomes.>`, {
        callback: (_error, message) => {
          const received = Date.now();
          lastEventAt = performance.now();
          lags.push(received - Date.parse(message.json<{ receivedAt: string }>().receivedAt));
        },
      })
    : undefined;
  const deadline = performance.now() + command.seconds * 1000;
  const started = performance.now();
  let entryLinks = 0;
  let outcomes = 0;
  let failures = 0;
  let next = 0;
  const statusLatencies: number[] = [];
  const status = (async () => {
    while (performance.now() < deadline) {
      const before = performance.now();
      const response = await fetch(`${command.url}/v1/sync/status`, { headers });
      await response.arrayBuffer();
      statusLatencies.push(performance.now() - before);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const flood = async () => {
    while (performance.now() < deadline) {
      const outcome = await fetch(`${command.url}/v1/outcomes/complete?vq_token=${command.tokenPrefix}-${next++}`);
      await outcome.arrayBuffer();
      if (outcome.status === 200) outcomes += 1;
      else if ((failures += 1) <= 3) process.stderr.write(`events-load: outcome answered ${outcome.status}\n`);
    }
  };
  await Promise.all(
    Array.from({ length: command.workers }, async () => {
      if (command.flood) return flood();
      while (performance.now() < deadline) {
        const index = next++;
        const token = `${command.tokenPrefix}-${index}`;
        const surveyId = command.surveyIds[index % command.surveyIds.length] ?? 0;
        const link = await fetch(`${command.url}/v1/entry-links`, {
          method: "POST",
          headers,
          body: JSON.stringify({ surveyId, token, uid: `member-${index}` }),
        });
        const answer = await link.text();
        if (link.status !== 201) {
          failures += 1;
          // A benchmark that hides a failing route measures nothing: the first few are shown.
          if (failures <= 3)
            process.stderr.write(`events-load: entry link answered ${link.status}: ${answer.slice(0, 200)}\n`);
          continue;
        }
        entryLinks += 1;
        const outcome = await fetch(`${command.url}/v1/outcomes/complete?vq_token=${token}`);
        await outcome.arrayBuffer();
        if (outcome.status === 200) outcomes += 1;
        else failures += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await status;
  if (subscription) {
    // The events of the last outcomes arrive within the lag: wait for them.
    const until = performance.now() + 5000;
    while (lags.length < outcomes && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    subscription.unsubscribe();
  }
  const sortedLags = [...lags].sort((a, b) => a - b);
  return {
    entryLinks,
    outcomes,
    failures,
    seconds,
    statusP99Ms: quantile(
      [...statusLatencies].sort((a, b) => a - b),
      0.99,
    ),
    events: lags.length,
    eventsSeconds: lastEventAt === 0 ? 0 : (lastEventAt - started) / 1000,
    lagP50Ms: quantile(sortedLags, 0.5),
    lagP99Ms: quantile(sortedLags, 0.99),
    lagMaxMs: sortedLags.at(-1) ?? Number.NaN,
  };
}

process.once("message", (command: EventsLoadCommand) => {
  run(command).then(
    (report) => {
      process.send?.(report, () => process.exit(0));
    },
    (error: unknown) => {
      process.stderr.write(`events-load: ${String(error)}\n`);
      process.exit(1);
    },
  );
});
