import { batchFailure, sendInBatches } from "../../sync/batches.ts";
import type { CommandContext } from "../../framework/command.ts";
import { SyncServiceError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";
import { checkInputFile, inputName, openInputFile } from "../../framework/input-file.ts";
import type { RecordColumn } from "../../framework/output.ts";
import { reconcileLines, type ReconcileLine } from "./reconcile-file.ts";
import { reconcileDigest, reconcileKeys, type ReconcileKeys } from "./reconcile-key.ts";
import { connectSync, type SyncConnection, type syncConnectionOptions } from "../../sync/sync-connection.ts";
import type { OutcomeKind, Reconciled } from "@sds/sync-client";

type Status = Reconciled["results"][number]["status"];

/** One line's result, as `-o json`, `ndjson` and `csv` print it. */
export interface ReconcileResult {
  readonly line: number;
  readonly token: string;
  readonly status: Status;
  readonly previousOutcome: OutcomeKind | null;
  readonly outcome: OutcomeKind;
  readonly reason: string | null;
  /** The transition's place in sds-sync's outcome feed; null when nothing was recorded. */
  readonly sequence: number | null;
}

/** What `sds outcomes reconcile -o json` prints. */
export interface ReconcileReport {
  readonly dryRun: boolean;
  /** The batches sds-sync answered, in order: each applied whole (or, on a dry run, previewed). */
  readonly batches: readonly BatchReport[];
  readonly lines: number;
  readonly changed: number;
  readonly unchanged: number;
  readonly unknown: number;
  readonly results: readonly ReconcileResult[];
}

const columns: readonly RecordColumn<ReconcileResult>[] = [
  { header: "line", align: "right" },
  { header: "token" },
  { header: "status" },
  { header: "previousOutcome", value: (row) => row.previousOutcome ?? "" },
  { header: "outcome" },
  { header: "reason", value: (row) => row.reason ?? "" },
  { header: "sequence", value: (row) => row.sequence ?? "" },
];

/** One batch sds-sync answered. */
export interface BatchReport {
  /** 1-based. */
  readonly batch: number;
  readonly firstLine: number;
  readonly lastLine: number;
  /** Recorded by an earlier run with the same idempotency key: this run recorded nothing of it, and its results are that run's. */
  readonly replayed: boolean;
}

/** What one batch's answer says. */
interface BatchAnswer {
  readonly report: BatchReport;
  readonly results: readonly ReconcileResult[];
}

/** How many unknown tokens the warning names. */
const namedUnknownTokens = 10;

/**
 * Reads and checks a reconciliation file to its end (nothing is sent unless every line is
 * valid), digesting it for its idempotency key on the way, then reads it again, sending it in
 * batches as it is read: memory holds a batch, not the file. With `-o ndjson` or `csv` each
 * batch's results are printed as they come; a table and `-o json` need them all, kept to the end.
 */
export async function runReconcile(
  context: CommandContext<typeof syncConnectionOptions>,
  path: string,
  options: { readonly size: number; readonly dryRun: boolean; readonly again: boolean },
): Promise<void> {
  const sync = await connectSync(context);
  const input = await openInputFile(context, path);
  try {
    // A dry run records nothing, so it has nothing to apply once: it sends no key.
    const digest = options.dryRun || options.again ? undefined : reconcileDigest(options.size);
    const lines = await checkInputFile(context, input, reconcileLines, digest?.add);
    if (lines.count === 0) context.output.note(`${inputName(path)} has no lines to reconcile.`);
    const keys = options.dryRun || lines.count === 0 ? undefined : reconcileKeys(digest?.digest());
    if (keys !== undefined)
      context.output.note(
        keys.derived
          ? `idempotency key ${keys.short} derived from the file's content; --again sends a fresh one`
          : `idempotency key ${keys.short} is fresh (--again): the lines are recorded again`,
      );
    const tally = new ResultTally();
    const printed = streamsResults(context) ? context.output.recordStream<ReconcileResult>({ columns }) : undefined;
    const run = await sendInBatches(context, lines, {
      size: options.size,
      label: options.dryRun ? "Checking" : "Reconciling",
      send: async (batch, index) => {
        const answer = await sendBatch(sync, batch, index, { dryRun: options.dryRun, keys });
        // Printed once applied, before the next batch is sent: stdout shows what sds-sync recorded so far.
        tally.add(answer.results);
        if (printed === undefined) return { report: answer.report, results: keptResults(context, answer.results) };
        await printed.write(answer.results);
        return { report: answer.report, results: [] };
      },
    });
    const batches = run.answers.map((answer) => answer.report);
    noteReplayed(context, batches);
    // When the first batch failed nothing was applied (a batch is all or nothing): the error alone says so.
    if (run.failure?.batch === 0) throw run.failure.error;
    warnUnknown(context, tally);
    if (printed !== undefined) await printed.end();
    else
      await printReport(context, {
        dryRun: options.dryRun,
        batches,
        lines: tally.lines,
        changed: tally.changed,
        unchanged: tally.unchanged,
        unknown: tally.unknown.count,
        results: run.answers.flatMap((answer) => answer.results),
      });
    if (run.failure !== undefined)
      throw batchFailure(run.failure, failureAdvice(run.failure.error, run.failure.batch, options.dryRun));
  } finally {
    await input.close();
  }
}

/** Whether the results are printed batch by batch (NDJSON, CSV: a line per result) rather than as one report. */
function streamsResults(context: CommandContext): boolean {
  return context.output.format === "ndjson" || context.output.format === "csv";
}

/** What the report keeps of a batch's results: `-o json` prints every one, a table only the changes. */
function keptResults(context: CommandContext, results: readonly ReconcileResult[]): readonly ReconcileResult[] {
  return context.output.format === "table" ? results.filter((result) => result.status === "changed") : results;
}

/** The totals of the results, and the first unknown tokens: what the summary and the warning need, not the results. */
class ResultTally {
  lines = 0;
  changed = 0;
  unchanged = 0;
  readonly unknown = { count: 0, named: [] as ReconcileResult[] };

  add(results: readonly ReconcileResult[]): void {
    for (const result of results) {
      this.lines += 1;
      if (result.status === "changed") this.changed += 1;
      else if (result.status === "unchanged") this.unchanged += 1;
      else if (this.unknown.count++ < namedUnknownTokens) this.unknown.named.push(result);
    }
  }
}

/**
 * What a run that stopped at batch `failed` (0-based) applied: the batches before it, each whole;
 * the failed one nothing when sds-sync refused it (a 4xx: it rolls a batch back whole), else
 * all or nothing, not known which (a 5xx or no answer: it may have committed before the answer
 * was lost). The idempotency key makes running the file again safe either way.
 */
function failureAdvice(error: unknown, failed: number, dryRun: boolean): string {
  if (dryRun) return "Nothing was recorded (a dry run).";
  const applied = failed === 1 ? "Batch 1 was applied" : `Batches 1 to ${failed} were applied`;
  const status = error instanceof SyncServiceError ? error.status : undefined;
  const failedBatch =
    status !== undefined && status >= 400 && status < 500
      ? `batch ${failed + 1} recorded nothing (sds-sync refused it: a batch is all or nothing)`
      : `batch ${failed + 1} was recorded whole or not at all, and which is not known`;
  return `${applied}; ${failedBatch}. Running the file again is safe: each batch sds-sync already applied answers its first answer (same idempotency key) instead of recording again.`;
}

/** Says on stderr which batches an earlier run with the same key had applied: this run recorded nothing of them. */
function noteReplayed(context: CommandContext, batches: readonly BatchReport[]): void {
  const replayed = batches.filter((batch) => batch.replayed);
  if (replayed.length === 0) return;
  const named = replayed.map((batch) => `${batch.batch} (lines ${batch.firstLine}–${batch.lastLine})`).join(", ");
  context.output.note(
    `${replayed.length === 1 ? "batch" : "batches"} ${named} had been applied by an earlier run with the same idempotency key: nothing was recorded again, and the results shown are that run's (--again records the lines anew)`,
  );
}

async function sendBatch(
  sync: SyncConnection,
  batch: readonly ReconcileLine[],
  index: number,
  options: { readonly dryRun: boolean; readonly keys: ReconcileKeys | undefined },
): Promise<BatchAnswer> {
  const { dryRun, keys } = options;
  const outcomes = batch.map((line) => ({
    token: line.token,
    outcome: line.outcome,
    ...(line.reason === undefined ? {} : { reason: line.reason }),
  }));
  let answer: Reconciled;
  try {
    // `dryRun` only when asked: an sds-sync that predates it refuses the field rather than record.
    // With a key the client retries a failed attempt (the same key: never applied twice).
    answer = await sync.call((client, callOptions) =>
      client.outcomes.reconcile(
        dryRun ? { outcomes, dryRun: true } : { outcomes },
        keys === undefined ? callOptions : { ...callOptions, idempotencyKey: keys.batchKey(index) },
      ),
    );
  } catch (error) {
    if (dryRun && error instanceof SyncServiceError && error.status === 400 && /dryRun/.test(error.message)) {
      throw new SyncServiceError(error.message, ExitCode.Failure, {
        status: 400,
        cause: error,
        hint: "This sds-sync predates dry runs; upgrade it to use --dry-run. Nothing was recorded.",
      });
    }
    throw error;
  }
  return {
    report: {
      batch: index + 1,
      firstLine: batch[0]?.line ?? 0,
      lastLine: batch.at(-1)?.line ?? 0,
      replayed: answer.replayed === true,
    },
    results: readAnswer(answer, batch, index, dryRun),
  };
}

/**
 * The answer's lines (their shape checked by the client against sds-sync's schema) joined to the
 * file's, checked: one result per line sent, in order, for the same tokens. A dry run must say it
 * was one: otherwise the lines may have been recorded.
 */
function readAnswer(
  answer: Reconciled,
  batch: readonly ReconcileLine[],
  index: number,
  dryRun: boolean,
): ReconcileResult[] {
  if (dryRun && !answer.dryRun) {
    throw new SyncServiceError(
      `sds-sync did not confirm the dry run of batch ${index + 1}: it may have recorded it`,
      ExitCode.Failure,
      { hint: "Check its outcome feed (GET /v1/outcomes) and upgrade sds-sync." },
    );
  }
  const mismatch = () =>
    new SyncServiceError(`sds-sync's answer to batch ${index + 1} does not match the lines sent`, ExitCode.Validation, {
      hint: "Check that --sync-url is sds-sync; run with --debug for the exchange.",
    });
  if (answer.results.length !== batch.length) throw mismatch();
  return batch.map((line, position) => {
    const result = answer.results[position];
    if (result?.token !== line.token) throw mismatch();
    return {
      line: line.line,
      token: line.token,
      status: result.status,
      previousOutcome: result.previousOutcome,
      outcome: line.outcome,
      reason: line.reason ?? null,
      sequence: result.sequence,
    };
  });
}

/** Warns of the tokens no entry carries: the first few by line and token, and how many more. */
function warnUnknown(context: CommandContext, tally: ResultTally): void {
  const { count, named } = tally.unknown;
  if (count === 0) return;
  const listed = named.map((result) => `line ${result.line} ${JSON.stringify(result.token)}`);
  const more = count > listed.length ? `, and ${count - listed.length} more` : "";
  context.output.warn(
    `${count === 1 ? "1 token matches" : `${count} tokens match`} no entry issued by sds-sync (nothing recorded for ${count === 1 ? "it" : "them"}): ${listed.join(", ")}${more}`,
  );
}

/** Prints the report: `-o json` as a document, a table as the changes (the only results it kept) and the totals. */
async function printReport(context: CommandContext, report: ReconcileReport): Promise<void> {
  if (context.output.format === "json") return writeJsonReport(context, report);
  await context.output.document(report, (styles, tables) => {
    const changes = report.results.filter((result) => result.status === "changed");
    const table =
      changes.length === 0
        ? ""
        : tables.renderTable(
            [{ header: "TOKEN" }, { header: "CHANGE" }, { header: "REASON" }],
            changes.map((result) => [
              result.token,
              `${result.previousOutcome ?? "pending"} → ${result.outcome}`,
              result.reason ?? "",
            ]),
            { styles, maxWidth: context.output.maxWidth },
          );
    return `${table}${summary(report)}\n`;
  });
}

/** The results written at a time by {@link writeJsonReport}. */
const resultsPerWrite = 500;

/**
 * Writes the report as `JSON.stringify(report, null, 2)` would, a few results at a time: the
 * text of a million results is never one string in memory.
 */
async function writeJsonReport(context: CommandContext, report: ReconcileReport): Promise<void> {
  const { results, ...head } = report;
  // `results` is the last field: the head's text ends in its empty array, which the results replace.
  const headText = JSON.stringify({ ...head, results: [] }, null, 2);
  if (results.length === 0) return context.output.write(`${headText}\n`);
  await context.output.write(`${headText.slice(0, -"[]\n}".length)}[\n`);
  for (let start = 0; start < results.length; start += resultsPerWrite) {
    const pieces = results
      .slice(start, start + resultsPerWrite)
      .map((result) => `    ${JSON.stringify(result, null, 2).replaceAll("\n", "\n    ")}`);
    await context.output.write(`${start === 0 ? "" : ",\n"}${pieces.join(",\n")}`);
  }
  await context.output.write("\n  ]\n}\n");
}

/** `Reconciled 4 lines: 1 changed, 2 unchanged, 1 unknown token.`, or its dry-run wording. */
function summary(report: ReconcileReport): string {
  const unknown = `${report.unknown} unknown token${report.unknown === 1 ? "" : "s"}`;
  const lines = `${report.lines} line${report.lines === 1 ? "" : "s"}`;
  if (report.dryRun)
    return `Dry run of ${lines}: ${report.changed} would change, ${report.unchanged} unchanged, ${unknown}; nothing was recorded.`;
  return `Reconciled ${lines}: ${report.changed} changed, ${report.unchanged} unchanged, ${unknown}.`;
}
