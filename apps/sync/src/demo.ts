import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { signStartLink } from "@sds/routing";
import { startSandbox, type Sandbox } from "@sds/testing";
import { configSecrets, loadConfig } from "./config/config.ts";
import { PortInUseError, SyncError } from "./common/errors.ts";
import { createLogger } from "./common/logger.ts";
import { startSyncService, type SyncService } from "./service.ts";
import type { CycleResult } from "./cycle/cycle-result.ts";
import { describeWalk, pointRedirectsAtReturn, pointS2sAtReceiver, walkRespondents } from "./demo-respondents.ts";
import { DEMO_NATS, describeDemoEvents, resetDemoStream } from "./events/demo-events.ts";

/**
 * The README's main job: the sandbox (a fake Supplier Data Service with seeded surveys, and its
 * marketplace) and sds-sync on the embedded SQLite store against it. Points the account's S2S
 * URLs at sds-sync's receiver and its redirect URLs at sds-sync's return, waits for the first
 * cycle, prints what was synced, walks a few respondents through sessions (questions, surveys,
 * the return, a re-route after a terminate) and prints
 * where to look (the status page among it), then runs until Ctrl-C (or exits with `--once`). Built as `dist/demo.js`, a development entry: it needs `@sds/testing`, a dev
 * dependency, so it is run from the repository and left out of the published package.
 */

const usage = `Usage: node apps/sync/dist/demo.js [options]

Starts the sandbox (with its marketplace) and sds-sync against it, points the account's S2S
URLs at sds-sync's receiver and its redirect URLs at sds-sync's return, waits for the first sync
cycle, walks a few respondents through sessions (the questions that pay, the surveys offered,
the marketplace's outcome and the return, a re-route after a terminate), prints what happened
and the URLs to query (the status page among them), then runs until Ctrl-C.

Options:
  --once             exit after the first cycle and the respondents (status 0 when both succeeded)
  --surveys N        live surveys in the sandbox (default 3000)
  --port N           port of the sds-sync API (default 8787; 0 picks a free one)
  --interval S       seconds between cycles (default 10)
  --respondents N    respondents walked through sessions at start (default 12; 0 walks none)
  --no-marketplace   no marketplace, no respondents: the inventory side only
  --churn            change a few sandbox surveys before every cycle, so the feed moves
  --nats             publish the outcome and change feeds to the NATS server (JetStream) at
                     --nats-url, in the demo's own stream SDS_DEMO, and print the command of a
                     consumer that shows completes and reversals arriving
  --nats-url URL     the NATS server of --nats (default nats://127.0.0.1:4222)
  --verbose          show sds-sync's JSON logs (default: errors only; the loop's warnings are
                     printed once, after the respondents)
  -h, --help         show this help

Environment:
  SYNC_SESSION_SECRET  the secret of the respondent page's start links (32 characters or more),
                       so that you can sign links yourself with \`sds link start\`; default: one
                       made for the run
`;

/** Exit status for a bad command line (EX_USAGE). */
const EXIT_USAGE = 64;

interface DemoOptions {
  readonly once: boolean;
  readonly surveys: number;
  readonly port: number;
  readonly intervalSeconds: number;
  readonly churn: boolean;
  readonly verbose: boolean;
  readonly marketplace: boolean;
  readonly respondents: number;
  /** `--nats`: the NATS server to publish to, else undefined. */
  readonly natsUrl: string | undefined;
}

function parseOptions(argv: readonly string[]): DemoOptions | "help" {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      once: { type: "boolean", default: false },
      surveys: { type: "string", default: "3000" },
      port: { type: "string", default: "8787" },
      interval: { type: "string", default: "10" },
      churn: { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
      marketplace: { type: "boolean", default: true },
      respondents: { type: "string", default: "12" },
      nats: { type: "boolean", default: false },
      "nats-url": { type: "string", default: "nats://127.0.0.1:4222" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
    allowNegative: true,
  });
  if (values.help) return "help";
  const integer = (name: string, value: string, min: number, max: number) => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || number < min || number > max)
      throw new RangeError(`--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
    return number;
  };
  return {
    once: values.once,
    surveys: integer("surveys", values.surveys, 0, 200_000),
    port: integer("port", values.port, 0, 65_535),
    intervalSeconds: integer("interval", values.interval, 1, 86_400),
    churn: values.churn,
    verbose: values.verbose,
    marketplace: values.marketplace,
    respondents: values.marketplace ? integer("respondents", values.respondents, 0, 1000) : 0,
    natsUrl: values.nats ? values["nats-url"] : undefined,
  };
}

function describeFirstCycle(result: CycleResult, service: SyncService, sandbox: Sandbox, databasePath: string): string {
  const { counts } = result;
  const seconds = ((result.finishedAt.getTime() - result.startedAt.getTime()) / 1000).toFixed(2);
  const [firstSurvey] = sandbox.api.listSurveys(sandbox.keys[0]?.supplierId ?? 1001);
  const url = service.url;
  return [
    "",
    `First sync cycle ${result.status} in ${seconds} s:`,
    `  ${counts.listed} live surveys listed, ${counts.opened} stored`,
    `  ${counts.qualificationsFetched} qualification sets and ${counts.quotasFetched} quota sets fetched (${counts.upstreamRequests} upstream requests)`,
    `  ${counts.changes} changes in the feed, ${counts.quarantined} malformed items quarantined, ${counts.fetchFailures} fetches to retry`,
    `  store: SQLite at ${databasePath}`,
    "",
    "Query it:",
    `  curl '${url}/v1/surveys?limit=5'`,
    `  curl '${url}/v1/surveys?minCpi=2&maxLoi=15&device=mobile&limit=5'`,
    `  curl '${url}/v1/surveys/${firstSurvey?.SurveyId ?? 1}'`,
    `  curl '${url}/v1/changes?after=0&limit=10'`,
    `  curl '${url}/v1/changes?after=${result.lastSequence ?? 0}&wait=30'     # long-poll for the next change`,
    `  curl '${url}/v1/sync/status'`,
    `  curl -X POST '${url}/v1/sync/run'                      # run a cycle now`,
    `  curl '${url}/metrics'   '${url}/readyz'`,
    "",
    "Change the sandbox, then watch the feed:",
    `  curl -X POST '${sandbox.controlUrl}/surveys/${firstSurvey?.SurveyId ?? 1}/close'`,
    `  curl -X PATCH '${sandbox.controlUrl}/surveys/${firstSurvey?.SurveyId ?? 1}' -H 'content-type: application/json' -d '{"Cpi":"9.99"}'`,
    `  (sandbox API: ${sandbox.baseUrl}, key ${sandbox.keys[0]?.apiKey ?? "?"})`,
    "",
  ].join("\n");
}

/** A little upstream churn between cycles: closes, reopens, price changes, new qualifications, a new survey. */
function churn(sandbox: Sandbox, round: number): void {
  const supplierId = sandbox.keys[0]?.supplierId ?? 1001;
  const live = sandbox.api.listSurveys(supplierId, "live");
  const closed = sandbox.api.listSurveys(supplierId, "closed");
  const pick = (offset: number) => live[(round * 7 + offset) % Math.max(1, live.length)];
  const toClose = pick(0);
  if (toClose) sandbox.api.closeSurvey(toClose.SurveyId);
  const toReopen = closed[0];
  if (toReopen && round % 2 === 1) sandbox.api.reopenSurvey(toReopen.SurveyId);
  const toReprice = pick(3);
  if (toReprice) sandbox.api.updateSurvey(toReprice.SurveyId, { Cpi: (1 + ((round * 13) % 90) / 10).toFixed(2) });
  const toRequalify = pick(5);
  if (toRequalify)
    sandbox.api.replaceQualifications(toRequalify.SurveyId, [
      { QualificationId: 42, QualificationTypeId: 1, OptionIds: [round % 5], OptionCodes: [String(round % 5)] },
    ]);
  sandbox.api.addSurvey(supplierId);
}

function portInUse(port: number): string {
  return `demo: port ${port} is already in use: stop what listens there, or run the demo with --port N (--port 0 picks a free one)\n`;
}

/** Whether sds-sync could listen on `port` of 127.0.0.1 now (the service itself still reports a port taken meanwhile). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => {
      resolve(false);
    });
    probe.listen(port, "127.0.0.1", () => {
      probe.close(() => {
        resolve(true);
      });
    });
  });
}

async function main(): Promise<number> {
  let options: DemoOptions | "help";
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`demo: ${(error as Error).message}\n\n${usage}`);
    return EXIT_USAGE;
  }
  if (options === "help") {
    process.stdout.write(usage);
    return 0;
  }

  // Ctrl-C is caught from the start, also during the first cycle, so that the demo always cleans
  // up (the sandbox, the temporary store); a second Ctrl-C ends it at once (the default action).
  const signalled = { stop: false };
  const stopAsked = new Promise<void>((resolve) => {
    const onSignal = () => {
      signalled.stop = true;
      process.stdout.write("\nStopping…\n");
      resolve();
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  });
  /** Aborts the respondents' walk (its HTTP calls) on Ctrl-C. */
  const walkStop = new AbortController();
  void stopAsked.then(() => {
    walkStop.abort();
  });

  // A taken port is found before the sandbox's seconds of set-up, not after them.
  if (options.port !== 0 && !(await portIsFree(options.port))) {
    process.stderr.write(portInUse(options.port));
    return 1;
  }
  const apiKey = "demo-key-sds-sync";
  process.stdout.write(
    `Starting the sandbox with ${options.surveys} surveys${options.marketplace ? " and its marketplace" : ""}…\n`,
  );
  const sandbox = await startSandbox({ surveys: options.surveys, seed: 1, apiKey, marketplace: options.marketplace });
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-demo-"));
  const databasePath = join(directory, "sds.db");
  let service: SyncService | undefined;
  const cleanUp = async () => {
    await service?.stop();
    await sandbox.close();
    rmSync(directory, { recursive: true, force: true });
  };
  /** The next cycle's result; once a stop is asked, the service stops (aborting a running cycle, whose result comes first) or undefined when no cycle ran. */
  const nextCycle = (running: SyncService): Promise<CycleResult | undefined> =>
    Promise.race([running.engine.nextCycle(), stopAsked.then(() => running.stop()).then(() => undefined)]);
  /** Cleans up after a stop asked during a cycle or between two; the aborted cycle is no failure. */
  const stopped = async (result: CycleResult | undefined): Promise<number> => {
    if (result?.failure === "shutdown")
      process.stdout.write("cycle aborted by shutdown; nothing of it was committed\n");
    try {
      await cleanUp();
      return 0;
    } catch (error) {
      process.stderr.write(`demo: ${String(error)}\n`);
      return 1;
    }
  };

  try {
    if (signalled.stop) return await stopped(undefined);
    if (options.natsUrl !== undefined) await resetDemoStream(options.natsUrl);
    // The respondent page's start links are signed with this secret: the caller's, so that they can
    // sign links themselves (`sds link start`), else one made for this run only.
    const givenSecret = process.env.SYNC_SESSION_SECRET;
    const sessionSecret =
      givenSecret === undefined || givenSecret === "" ? randomBytes(32).toString("hex") : givenSecret;
    const config = loadConfig({
      SYNC_SESSION_SECRET: sessionSecret,
      SDS_BASE_URL: sandbox.baseUrl,
      SDS_API_KEY: apiKey,
      DATABASE_URL: `sqlite:${databasePath}`,
      PORT: String(options.port),
      HOST: "127.0.0.1",
      SYNC_INTERVAL: String(options.intervalSeconds),
      // Errors only: the sandbox account's OutgoingEncryption is off, and sds-sync warns of it at every account read.
      LOG_LEVEL: options.verbose ? "info" : "error",
      ...(options.natsUrl === undefined
        ? {}
        : {
            SYNC_NATS_URL: options.natsUrl,
            SYNC_NATS_STREAM: DEMO_NATS.stream,
            SYNC_NATS_SUBJECT_PREFIX: DEMO_NATS.subjectPrefix,
          }),
    });
    process.stdout.write(`Starting sds-sync against ${sandbox.baseUrl}…\n`);
    service = await startSyncService({
      config,
      logger: createLogger(config.logLevel, { secrets: configSecrets(config) }),
    });
    // The marketplace calls the account's S2S URLs at the end of every session: sds-sync's receiver.
    if (options.marketplace) {
      await pointS2sAtReceiver(sandbox, apiKey, service.outcomesUrl, walkStop.signal);
      // And the redirects at the session's return: a respondent ending a survey comes back to their session.
      await pointRedirectsAtReturn(sandbox, apiKey, service.outcomesUrl, walkStop.signal);
    }
    const first = service.engine.status().lastCycle ?? (await nextCycle(service));
    if (first === undefined || first.failure === "shutdown") return await stopped(first);
    process.stdout.write(describeFirstCycle(first, service, sandbox, databasePath));
    if (first.status === "failed") {
      await cleanUp();
      return 1;
    }
    if (options.respondents > 0) {
      const walk = await walkRespondents(
        service,
        sandbox,
        options.respondents,
        first.lastSequence ?? 0,
        walkStop.signal,
      );
      if (walk === undefined) return await stopped(undefined);
      process.stdout.write(describeWalk(walk, service, sandbox, { keepsRunning: !options.once }));
    } else if (!options.once) {
      process.stdout.write(`Status page: ${service.url}/\n\n`);
    }
    if (options.marketplace && !options.once)
      process.stdout.write(await describeStartLink(service, sessionSecret, sessionSecret === givenSecret));
    if (options.natsUrl !== undefined) process.stdout.write(await describeDemoEvents(service, options.natsUrl));
    if (options.once) {
      await cleanUp();
      return 0;
    }
  } catch (error) {
    // A Ctrl-C during the account update or the respondents' walk aborts their calls: a stop, not a failure.
    if (signalled.stop) return await stopped(undefined);
    if (error instanceof PortInUseError) process.stderr.write(portInUse(error.port));
    else
      process.stderr.write(
        `demo: ${error instanceof SyncError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    await cleanUp().catch(() => undefined);
    return 1;
  }

  const running = service;
  process.stdout.write(
    `sds-sync runs a cycle every ${options.intervalSeconds} s${options.churn ? ", with sandbox churn before each" : ""}. Ctrl-C to stop.\n`,
  );
  let round = 0;
  if (options.churn) churn(sandbox, round);
  for (;;) {
    const result = await nextCycle(running);
    if (result === undefined || result.failure === "shutdown") return stopped(result);
    const { counts } = result;
    process.stdout.write(
      `cycle ${result.status}: ${counts.listed} listed, ${counts.changes} changes (opened ${counts.opened}, updated ${counts.updated}, qualifications ${counts.qualificationsChanged}, closed ${counts.closed}, reopened ${counts.reopened}), ${counts.upstreamRequests} requests, ${result.finishedAt.getTime() - result.startedAt.getTime()} ms\n`,
    );
    if (options.churn) churn(sandbox, (round += 1));
  }
}

/** A start link of the respondent page for one respondent, in the language most live surveys use. */
async function describeStartLink(service: SyncService, secret: string, secretGiven: boolean): Promise<string> {
  const languages = await service.store.countByLanguage();
  const languageId = languages.reduce((best, each) => (each.live > best.live ? each : best), {
    languageId: 3,
    live: 0,
  }).languageId;
  const link = signStartLink({ uid: "demo-browser", languageId }, secret, { baseUrl: service.outcomesUrl });
  return `Respondent page: open this start link in a browser within 10 minutes (respondent demo-browser, language ${languageId}; signed with ${secretGiven ? "SYNC_SESSION_SECRET from your environment" : "a secret made for this run; set SYNC_SESSION_SECRET before the demo to sign links yourself"}):\n  ${link}\n\n`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`demo: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
