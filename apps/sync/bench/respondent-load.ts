/**
 * The load generator of respondent-routing.bench.ts, in a process of its own so its CPU does not
 * count against sds-sync: autocannon POSTs to `/v1/match` (a respondent profile with a uid drawn
 * from the pool) or to `/v1/entry-links` (a new token every request, a uid and a survey drawn
 * from the pools) and sends back the summary, with the count of each status, over IPC.
 */
import { createSeededRandom } from "@sds/testing";
import autocannon from "autocannon";

/** What each request carries. */
export type LoadPlan =
  /** `profiles`: JSON objects (answers, language, device) to which `"uid"` is appended. */
  | { readonly kind: "match"; readonly profiles: readonly string[]; readonly uids: readonly string[] }
  /** Tokens are `tokenPrefix` and a counter: unique within the run, and across runs by the prefix. */
  | {
      readonly kind: "entry-link";
      readonly surveyIds: readonly number[];
      readonly uids: readonly string[];
      readonly tokenPrefix: string;
    };

/** What the benchmark sends this process. */
export interface LoadCommand {
  readonly url: string;
  readonly token: string;
  readonly connections: number;
  readonly seconds: number;
  readonly plan: LoadPlan;
}

/** What this process answers. */
export interface LoadReport {
  readonly requestsPerSecond: number;
  readonly requests: number;
  /** Responses by HTTP status, such as `{ "201": 9800, "409": 200 }`. */
  readonly statuses: Readonly<Record<string, number>>;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
}

/**
 * The body of the next request under a plan, seeded so two runs send the same requests in the
 * same order. A 32-bit generator (mulberry32), not the float LCG of match-http.bench.ts: that one
 * repeats after about 10,000 draws, so pairs of uid and survey would recur within a run.
 */
export function bodyMaker(plan: LoadPlan, seed = 4242): () => string {
  const { pick } = createSeededRandom(seed);
  if (plan.kind === "match") {
    return () => {
      const profile = pick(plan.profiles);
      return `${profile.slice(0, -1)},"uid":${JSON.stringify(pick(plan.uids))}}`;
    };
  }
  let counter = 0;
  return () =>
    JSON.stringify({
      surveyId: pick(plan.surveyIds),
      token: `${plan.tokenPrefix}-${(counter++).toString(36)}`,
      uid: pick(plan.uids),
    });
}

process.once("message", (command: LoadCommand) => {
  const nextBody = bodyMaker(command.plan);
  const instance = autocannon(
    {
      url: command.url,
      connections: command.connections,
      duration: command.seconds,
      headers: { authorization: `Bearer ${command.token}`, "content-type": "application/json" },
      requests: [{ method: "POST", setupRequest: (request) => ({ ...request, body: nextBody() }) }],
    },
    (error, result) => {
      if (error) throw error;
      const statuses = Object.fromEntries(
        Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, stats.count ?? 0]),
      );
      const report: LoadReport = {
        requestsPerSecond: result.requests.average,
        requests: result.requests.total,
        statuses,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
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
