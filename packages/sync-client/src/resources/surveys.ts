import type { SyncRequestOptions } from "../client-options.ts";
import { queryOf } from "../internal/query.ts";
import type { SyncTransport } from "../internal/transport.ts";
import { CollectionList, StoredSurveyDetail, SurveyPage } from "../schemas/inventory.ts";
import type { SurveyQuery } from "../schemas/survey-query.ts";

/** The query of `GET /v1/surveys` as the client takes it: {@link SurveyQuery}, `updatedSince` also as a `Date`. */
export type SurveyListParams = Omit<SurveyQuery, "updatedSince"> & {
  /** Only surveys whose stored copy changed at or after this time. */
  readonly updatedSince?: Date | string | undefined;
};

/** The inventory sds-sync keeps: stored surveys and the reference collections. */
export class Surveys {
  readonly #transport: SyncTransport;

  /** @internal Built by the client. */
  constructor(transport: SyncTransport) {
    this.#transport = transport;
  }

  /**
   * `GET /v1/surveys`: one page of stored surveys, filtered. `sequence` is the change-feed
   * position the page reflects at least: list every page, then follow the changes after the
   * first page's `sequence`.
   */
  async list(params: SurveyListParams = {}, options: SyncRequestOptions = {}): Promise<SurveyPage> {
    const answer = await this.#transport.request(
      {
        operation: "listSurveys",
        method: "GET",
        path: "/v1/surveys",
        query: queryOf({ ...params }),
        response: SurveyPage,
        idempotent: true,
      },
      options,
    );
    return answer.data;
  }

  /** `GET /v1/surveys/{id}`: one stored survey with its qualifications and quotas. @throws SyncNotFoundError */
  async get(surveyId: number, options: SyncRequestOptions = {}): Promise<StoredSurveyDetail> {
    const answer = await this.#transport.request(
      {
        operation: "getSurvey",
        method: "GET",
        path: `/v1/surveys/${encodeURIComponent(String(surveyId))}`,
        response: StoredSurveyDetail,
        idempotent: true,
      },
      options,
    );
    return answer.data;
  }

  /** `GET /v1/collections`: the stored reference collections. */
  async collections(options: SyncRequestOptions = {}): Promise<CollectionList> {
    const answer = await this.#transport.request(
      {
        operation: "listCollections",
        method: "GET",
        path: "/v1/collections",
        response: CollectionList,
        idempotent: true,
      },
      options,
    );
    return answer.data;
  }
}
