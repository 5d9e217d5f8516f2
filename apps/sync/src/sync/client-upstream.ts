import { createClient, type ClientOptions } from "@sds/client";
import type { CollectionName, Upstream } from "./upstream.ts";

/** Per-attempt timeout of Get Surveys, in ms. */
export const LIST_TIMEOUT_MS = 120_000;

/** Options of {@link createClientUpstream}: the client's, of which sds-sync sets a few. */
export type ClientUpstreamOptions = Pick<ClientOptions, "baseUrl" | "apiKey" | "fetch" | "maxConcurrency" | "timeout" | "retry" | "logger">;

/**
 * The production {@link Upstream}: `@sds/client` with validation per item on the live list,
 * so one malformed survey never costs the other 9,999.
 */
export function createClientUpstream(options: ClientUpstreamOptions): Upstream {
  const sds = createClient({ ...options, validation: "loose" });
  const collections: Record<CollectionName, (signal: AbortSignal) => Promise<unknown>> = {
    languages: (signal) => sds.collections.languages({ signal }),
    industries: (signal) => sds.collections.industries({ signal }),
    studyTypes: (signal) => sds.collections.studyTypes({ signal }),
    surveyStatuses: (signal) => sds.collections.surveyStatuses({ signal }),
    qualificationCategories: (signal) => sds.collections.qualificationCategories({ signal }),
    qualificationCategoryTypes: (signal) => sds.collections.qualificationCategoryTypes({ signal }),
    qualificationTypes: (signal) => sds.collections.qualificationTypes({ signal }),
    qualifications: (signal) => sds.collections.qualifications({ signal }),
  };
  return {
    async listSurveys(signal) {
      // The whole inventory in one body can take a while on a slow link: a longer attempt timeout than per-survey calls.
      const { data, invalid } = await sds.surveys.listItemwise({ signal, timeout: LIST_TIMEOUT_MS });
      return { surveys: data.Surveys, invalid };
    },
    async qualifications(surveyId, signal) {
      return (await sds.surveys.qualifications(surveyId, { signal })).Qualifications;
    },
    async quotas(surveyId, signal) {
      return (await sds.surveys.quotas(surveyId, { signal })).Quotas;
    },
    collection: (name, signal) => collections[name](signal),
  };
}
