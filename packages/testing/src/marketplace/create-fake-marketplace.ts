import type { Survey } from "@sds/schemas";
import { encryptionSigning, signUrl, verifySignedUrl } from "@sds/routing";
import { createSeededRandom, deriveSeed } from "../random.ts";
import { startNodeServer } from "../internal/node-server.ts";
import { createServerSet } from "../internal/server-set.ts";
import { sleep } from "../internal/sleep.ts";
import { DEFAULT_OVERQUOTA_SHARE, drawOutcome } from "../simulation/hidden-conversion.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../fake/constants.ts";
import { createMarketplaceControlHandler, isMarketplaceControlPath } from "./marketplace-control-routes.ts";
import { entryParameterNames, rawQueryValue, templateOrigin } from "./entry-parameters.ts";
import { outcomeUrl } from "./outcome-urls.ts";
import { RespondentAnswers } from "./respondent-answers.ts";
import type {
  EntryResult,
  FakeMarketplace,
  FakeMarketplaceOptions,
  MarketplaceServer,
  RespondentOutcome,
  S2sAttempt,
  S2sDelivery,
} from "./types.ts";

const outcomes: readonly RespondentOutcome[] = ["complete", "terminate", "overquota", "security"];
const entryPath = /^\/s\/(\d+)(?:[/?#]|$)/;

/**
 * Creates the marketplace side of the respondent loop over a fake Supplier Data Service: an
 * entry endpoint that checks incoming entry links against the account's `IncomingEncryption`
 * (reading the token and uid from the parameters that the survey's `SurveyUrl` marks with
 * `[#vq_tid#]` and `[#vq_tuid#]`), then ends each session in an outcome, redirects to the
 * account's redirect URL for it and calls its S2S URL signed with `OutgoingEncryption`,
 * retrying failures and repeating deliveries as real senders do.
 *
 * @example
 * ```ts
 * const marketplace = createFakeMarketplace({ api, s2s: { duplicates: 1 } });
 * const result = await marketplace.enter(entryLink, { outcome: "complete" });
 * await marketplace.settle(); // the S2S callbacks have been sent
 * ```
 */
export function createFakeMarketplace(options: FakeMarketplaceOptions): FakeMarketplace {
  const { api } = options;
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  const retries = options.s2s?.retries ?? 3;
  const retryDelayMs = options.s2s?.retryDelayMs ?? 20;
  const duplicates = options.s2s?.duplicates ?? 0;
  const concurrentDuplicates = options.s2s?.concurrentDuplicates ?? false;
  const random = createSeededRandom(deriveSeed(options.seed ?? 1, 0x5e55));
  const planned = new Map<string, RespondentOutcome>();
  /** The outcome each token's session ended in: a second visit of the token ends the same way, as on a marketplace. */
  const decided = new Map<string, RespondentOutcome>();
  const truths = new RespondentAnswers();
  const log: S2sDelivery[] = [];
  const pending = new Set<Promise<void>>();
  const servers = createServerSet();
  let server: MarketplaceServer | undefined;

  function drawUnplanned(survey: Survey): RespondentOutcome {
    if (options.conversion === undefined) return random.pick(outcomes);
    const chance = options.conversion(survey);
    return drawOutcome(Number.isFinite(chance) ? chance : 0, DEFAULT_OVERQUOTA_SHARE, random.next);
  }

  async function deliver(url: string, token: string, outcome: RespondentOutcome, duplicate: boolean): Promise<boolean> {
    const attempts: S2sAttempt[] = [];
    const record = { url, token, outcome, duplicate, attempts, delivered: false };
    log.push(record);
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(retryDelayMs);
      try {
        const response = await send(url, { method: "GET", redirect: "manual" });
        await response.arrayBuffer();
        attempts.push({ status: response.status });
        if (response.ok) {
          record.delivered = true;
          return true;
        }
      } catch (error) {
        attempts.push({ error: error instanceof Error ? error.message : String(error) });
      }
    }
    return false;
  }

  function track(work: Promise<unknown>): void {
    const tracked = work.then(
      () => undefined,
      () => undefined,
    );
    pending.add(tracked);
    void tracked.finally(() => pending.delete(tracked));
  }

  function fireS2s(url: string, token: string, outcome: RespondentOutcome): void {
    if (concurrentDuplicates) {
      for (let copy = 0; copy <= duplicates; copy++) track(deliver(url, token, outcome, copy > 0));
      return;
    }
    track(
      (async () => {
        if (!(await deliver(url, token, outcome, false))) return;
        for (let copy = 0; copy < duplicates; copy++) await deliver(url, token, outcome, true);
      })(),
    );
  }

  /** The entry endpoint: `pathAndQuery` raw as received, `chosen` the outcome asked for, if any. */
  function handleEntry(pathAndQuery: string, chosen: RespondentOutcome | undefined): EntryResult {
    const surveyId = Number(entryPath.exec(pathAndQuery)?.[1] ?? Number.NaN);
    const record = Number.isSafeInteger(surveyId) ? api.getSurvey(surveyId) : undefined;
    if (record === undefined || !record.live) return { status: 404, reason: "no live survey at this entry link" };
    const account = api.getAccount(record.supplierId);
    const template = record.survey.SurveyUrl;
    // The link was signed for the survey's own host; over HTTP it arrives at this server's.
    const original = `${templateOrigin(template)}${pathAndQuery}`;
    const incoming = encryptionSigning(account.IncomingEncryption);
    if (incoming !== undefined) {
      const verdict = verifySignedUrl(original, incoming.key, incoming.scheme);
      if (!verdict.valid) return { status: 403, reason: `${verdict.reason}: ${verdict.message}`, surveyId };
    }
    const names = entryParameterNames(template);
    const token = (names.token === undefined ? undefined : rawQueryValue(original, names.token)) ?? "";
    const uid = (names.uid === undefined ? undefined : rawQueryValue(original, names.uid)) ?? "";
    const outcome =
      chosen ??
      planned.get(token) ??
      decided.get(token) ??
      truths.screenOut(uid, record.qualifications) ??
      drawUnplanned(record.survey);
    if (token !== "") decided.set(token, outcome);
    if (account.S2SUrls.Enabled) {
      const outgoing = encryptionSigning(account.OutgoingEncryption);
      const url = outcomeUrl(account.S2SUrls, outcome, token, uid);
      fireS2s(outgoing === undefined ? url : signUrl(url, outgoing.key, outgoing.scheme), token, outcome);
    }
    const base = { surveyId, token, uid, outcome };
    return account.RedirectUrls.Enabled
      ? { status: 302, location: outcomeUrl(account.RedirectUrls, outcome, token, uid), ...base }
      : { status: 200, ...base };
  }

  return {
    enter(entryLink, enterOptions = {}) {
      const afterOrigin = entryLink.slice(templateOrigin(entryLink).length);
      return Promise.resolve(handleEntry(afterOrigin, enterOptions.outcome));
    },
    plan(token, outcome) {
      planned.set(token, outcome);
    },
    tellAnswers(uid, answers) {
      truths.tell(uid, answers);
    },
    async listen(listenOptions = {}) {
      const control = createMarketplaceControlHandler(truths, DEFAULT_MAX_BODY_BYTES);
      const started = await startNodeServer(
        // The raw request target: nothing decoded or re-encoded, as the signature needs.
        async (request, _receivedAt, rawTarget) => {
          if (isMarketplaceControlPath(new URL(request.url).pathname))
            return { kind: "response", response: await control(request) };
          const result = handleEntry(rawTarget, undefined);
          const headers = new Headers({ "content-type": "application/json; charset=utf-8" });
          if (result.location !== undefined) headers.set("location", result.location);
          return {
            kind: "response",
            response: new Response(JSON.stringify(result), { status: result.status, headers }),
          };
        },
        // The entry endpoint reads no body; the control routes read small JSON ones.
        DEFAULT_MAX_BODY_BYTES,
        listenOptions,
      );
      const tracked = servers.track({ origin: started.origin, port: started.port, close: () => started.close() });
      server = tracked;
      return tracked;
    },
    async respond(entryLink, outcome) {
      if (server === undefined) throw new Error("call listen() before respond()");
      const afterOrigin = entryLink.slice(templateOrigin(entryLink).length);
      const token = (() => {
        const record = api.getSurvey(Number(entryPath.exec(afterOrigin)?.[1] ?? Number.NaN));
        const name = record === undefined ? undefined : entryParameterNames(record.survey.SurveyUrl).token;
        return name === undefined ? undefined : rawQueryValue(afterOrigin, name);
      })();
      if (outcome !== undefined && token !== undefined) planned.set(token, outcome);
      const response = await fetch(`${server.origin}${afterOrigin}`, { redirect: "manual" });
      return (await response.json()) as EntryResult;
    },
    async settle() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    deliveries: () => log.map((delivery) => ({ ...delivery, attempts: [...delivery.attempts] })),
    async close() {
      await this.settle();
      await servers.closeAll();
      server = undefined;
    },
  };
}
