import type { SyncClientOptions, SyncRequestOptions } from "./client-options.ts";
import { isSyncServerError } from "./errors/guards.ts";
import { resolveSyncClientOptions } from "./internal/resolve-options.ts";
import { SyncTransport } from "./internal/transport.ts";
import { Changes } from "./resources/changes.ts";
import { Cycles } from "./resources/cycles.ts";
import { EntryLinks } from "./resources/entry-links.ts";
import { Events } from "./resources/events.ts";
import { Outcomes } from "./resources/outcomes.ts";
import { Respondents } from "./resources/respondents.ts";
import { Sessions } from "./resources/sessions.ts";
import { Surveys } from "./resources/surveys.ts";
import { MatchBody, MatchResult } from "./schemas/match.ts";
import { Health, Readiness } from "./schemas/probes.ts";
import { SyncStatus } from "./schemas/status.ts";

/**
 * A client of sds-sync's HTTP API. Each method is one HTTP operation and resolves to the parsed
 * answer; failures are errors of this package's family. Create it with {@link createSyncClient}.
 * The token lives in the transport's headers, never in a field: printing the client shows none.
 */
export class SyncClient {
  /** The base URL requests go to, without a trailing slash. */
  readonly baseUrl: string;
  /** Entry links into live surveys. */
  readonly entryLinks: EntryLinks;
  /** The outcome feed and reconciliation. */
  readonly outcomes: Outcomes;
  /** Respondents' history and profiles. */
  readonly respondents: Respondents;
  /** The respondent's session: the next question, survey or end, re-routed after a terminate. */
  readonly sessions: Sessions;
  /** The stored inventory and the reference collections. */
  readonly surveys: Surveys;
  /** The change feed of the inventory. */
  readonly changes: Changes;
  /** Manual cycles and held closures (the operator's). */
  readonly cycles: Cycles;
  /** Events out: where each sink (NATS, each webhook) stands, and the resume of a failing webhook. */
  readonly events: Events;
  readonly #transport: SyncTransport;

  /** @throws SyncConfigurationError when an option is missing or invalid. */
  constructor(options: SyncClientOptions = {}) {
    const transport = new SyncTransport(resolveSyncClientOptions(options));
    this.#transport = transport;
    this.baseUrl = transport.baseUrl;
    this.entryLinks = new EntryLinks(transport);
    this.outcomes = new Outcomes(transport);
    this.respondents = new Respondents(transport);
    this.sessions = new Sessions(transport);
    this.surveys = new Surveys(transport);
    this.changes = new Changes(transport);
    this.cycles = new Cycles(transport);
    this.events = new Events(transport);
  }

  /**
   * `POST /v1/match`: the live surveys a respondent qualifies for, best first. Safe to retry.
   *
   * @example
   * ```ts
   * const { surveys, eligible } = await sync.match({ answers: { "42": ["30"] }, device: "mobile", uid: "r-91" });
   * ```
   */
  async match(body: MatchBody, options: SyncRequestOptions = {}): Promise<MatchResult> {
    const answer = await this.#transport.request(
      {
        operation: "match",
        method: "POST",
        path: "/v1/match",
        body: { value: body, schema: MatchBody },
        response: MatchResult,
        idempotent: true,
      },
      options,
    );
    return answer.data;
  }

  /** `GET /v1/sync/status`: this replica, its store, recent cycles, quarantine and the respondent loop's figures. */
  async status(options: SyncRequestOptions = {}): Promise<SyncStatus> {
    const answer = await this.#transport.request(
      { operation: "syncStatus", method: "GET", path: "/v1/sync/status", response: SyncStatus, idempotent: true },
      options,
    );
    return answer.data;
  }

  /** `GET /healthz`: whether the process is up. */
  async health(options: SyncRequestOptions = {}): Promise<Health> {
    const answer = await this.#transport.request(
      { operation: "healthz", method: "GET", path: "/healthz", response: Health, idempotent: true },
      options,
    );
    return answer.data;
  }

  /**
   * `GET /readyz`: whether a cycle succeeded within three intervals. A replica that is not ready
   * answers 503 with the same body, returned here (`ready: false`, `reason`), not thrown; the
   * call is not retried, since a 503 here is an answer.
   */
  async readiness(options: SyncRequestOptions = {}): Promise<Readiness> {
    try {
      const answer = await this.#transport.request(
        { operation: "readyz", method: "GET", path: "/readyz", response: Readiness, idempotent: true },
        { retry: false, ...options },
      );
      return answer.data;
    } catch (error) {
      if (isSyncServerError(error) && error.status === 503) {
        const notReady = Readiness.safeParse(error.body);
        if (notReady.success) return notReady.data;
      }
      throw error;
    }
  }
}

/**
 * Creates a client of sds-sync. `baseUrl` and `token` fall back to the `SDS_SYNC_URL` and
 * `SYNC_API_TOKEN` environment variables; a missing URL or any invalid option throws a
 * `SyncConfigurationError` at once.
 *
 * @throws SyncConfigurationError
 * @example
 * ```ts
 * import { createSyncClient } from "@sds/sync-client";
 *
 * const sync = createSyncClient({ baseUrl: "http://127.0.0.1:8787", token: process.env.SYNC_API_TOKEN });
 * const { surveys } = await sync.match({ answers: { "42": ["30"] } });
 * const { link } = await sync.entryLinks.create({ surveyId: Number(surveys[0]?.SurveyId), token: crypto.randomUUID() });
 * ```
 */
export function createSyncClient(options: SyncClientOptions = {}): SyncClient {
  return new SyncClient(options);
}
