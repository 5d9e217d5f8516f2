import type { Survey } from "@sds/schemas";
import { createControlHandler } from "../internal/control-routes.ts";
import { FaultEngine } from "../internal/fault-engine.ts";
import { startNodeServer } from "../internal/node-server.ts";
import { createServerSet } from "../internal/server-set.ts";
import { RequestLog } from "../internal/request-log.ts";
import { createService } from "../internal/service.ts";
import { Store } from "../internal/store.ts";
import type { SurveyEntry } from "../internal/survey-entry.ts";
import { createSeededRandom, deriveSeed } from "../random.ts";
import { DEFAULT_API_KEY, DEFAULT_MAX_BODY_BYTES, DEFAULT_SUPPLIER_ID } from "./constants.ts";
import type { FakeSupplierApi, FakeSupplierApiOptions, FakeSurveyRecord, FetchFunction } from "./types.ts";

function toRecord(entry: SurveyEntry, store: Store): FakeSurveyRecord {
  const { qualifications, quotas } = store.details(entry);
  return structuredClone({
    supplierId: entry.supplierId,
    live: entry.live,
    survey: entry.survey,
    qualifications,
    quotas,
    surveyGroups: store.surveyGroupsOf(entry.survey.SurveyId),
    recontactRespondents: store.recontactsOf(entry),
    stats: store.statsOf(entry),
  });
}

/**
 * Creates a fake Supplier Data Service: every operation of the `operations` table of
 * `@sds/schemas` under `/api/v1`, with the spec's envelope, authentication by the
 * `EQ-PARTNER-ACCESS-KEY` header, several suppliers with their own surveys, control methods
 * for tests and fault injection. Use {@link FakeSupplierApi.fetch} in-process or
 * {@link FakeSupplierApi.listen} over HTTP.
 *
 * @example
 * ```ts
 * const api = createFakeSupplierApi({ seed: 7, now: () => new Date("2026-03-01T00:00:00.000Z") });
 * const server = await api.listen({ port: 0 });
 * const response = await fetch(`${server.baseUrl}/surveys`, {
 *   headers: { "EQ-PARTNER-ACCESS-KEY": api.keys[0].apiKey },
 * });
 * await api.close();
 * ```
 */
export function createFakeSupplierApi(options: FakeSupplierApiOptions = {}): FakeSupplierApi {
  const seed = options.seed ?? 1;
  const clock = options.now ?? (() => new Date());
  const now = (): number => {
    const value = Number(clock());
    if (!Number.isFinite(value)) throw new RangeError("the now() clock returned an invalid date");
    return value;
  };
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1)
    throw new RangeError(`maxBodyBytes must be a positive integer, got ${String(maxBodyBytes)}`);
  const suppliers = options.suppliers ?? [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY }];

  let store = new Store(seed, now, suppliers);
  const faults = new FaultEngine(createSeededRandom(deriveSeed(seed, 0xfa17)));
  const log = new RequestLog(options.requestLogLimit ?? 10_000);
  const servers = createServerSet();

  // The control routes call the methods of `api`, which is defined below; they are only
  // reached through a request, by which time `api` exists.
  let controlHandler: ((request: Request, path: string) => Promise<Response>) | undefined;
  const handle = createService({
    store: () => store,
    faults,
    log,
    now,
    maxBodyBytes,
    control: options.control
      ? (request, path) => {
          controlHandler ??= createControlHandler(api, maxBodyBytes);
          return controlHandler(request, path);
        }
      : undefined,
  });

  const fetchInProcess: FetchFunction = async (input, init) => {
    const receivedAt = performance.now();
    const request = new Request(input, init);
    // fetch rejects with the signal's reason whenever the signal has aborted before the response.
    request.signal.throwIfAborted();
    const outcome = await handle(request, receivedAt);
    request.signal.throwIfAborted();
    if (outcome.kind === "reset") {
      // What Node's fetch (undici) throws when the peer resets the connection.
      const cause = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", errno: -104, syscall: "read" });
      throw new TypeError("fetch failed", { cause });
    }
    return outcome.response;
  };

  const api: FakeSupplierApi = {
    fetch: fetchInProcess,
    faults,
    get keys() {
      return store.keys();
    },
    async listen(listenOptions = {}) {
      return servers.track(await startNodeServer(handle, maxBodyBytes, listenOptions));
    },
    close: () => servers.closeAll(),
    getAccount: (supplierId) => store.account(supplierId),
    getSurvey(surveyId) {
      const entry = store.entry(surveyId);
      return entry ? toRecord(entry, store) : undefined;
    },
    listSurveys(supplierId, status = "live") {
      const surveys: Survey[] = [];
      for (const id of store.surveyIdsOf(supplierId)) {
        const entry = store.entry(id);
        if (entry && (status === "all" || entry.live === (status === "live")))
          surveys.push(structuredClone(entry.survey));
      }
      return surveys;
    },
    addSurvey: (supplierId, init) => structuredClone(store.addSurvey(supplierId, init).survey),
    updateSurvey: (surveyId, patch, updateOptions) =>
      structuredClone(store.updateSurvey(surveyId, patch, updateOptions?.allowInvalid ?? false).survey),
    closeSurvey: (surveyId) => structuredClone(store.setLive(surveyId, false).survey),
    reopenSurvey: (surveyId) => structuredClone(store.setLive(surveyId, true).survey),
    removeSurvey: (surveyId) => {
      store.removeSurvey(surveyId);
    },
    replaceQualifications: (surveyId, qualifications) =>
      structuredClone(store.replaceQualifications(surveyId, qualifications).qualifications ?? []),
    replaceQuotas: (surveyId, quotas) => structuredClone(store.replaceQuotas(surveyId, quotas).quotas ?? []),
    listSurveyGroups: (supplierId) => store.surveyGroupsOfSupplier(supplierId),
    setSurveyGroup: (groupId, surveyIds) => store.setSurveyGroup(groupId, surveyIds),
    addToSurveyGroup: (groupId, surveyId) => store.addToSurveyGroup(groupId, surveyId),
    removeFromSurveyGroup: (groupId, surveyId) => store.removeFromSurveyGroup(groupId, surveyId),
    replaceRecontactRespondents(surveyId, respondents) {
      const entry = store.replaceRecontactRespondents(surveyId, respondents);
      return structuredClone(store.recontactsOf(entry));
    },
    setSurveyStats: (surveyId, stats) => structuredClone(store.statsOf(store.setSurveyStats(surveyId, stats))),
    requestLog: () => log.entries(),
    clearRequestLog: () => {
      log.clear();
    },
    reset() {
      store = new Store(seed, now, suppliers);
      log.clear();
      faults.clear();
    },
  };

  return api;
}
