import { createClient, type ClientOptions } from "@sds/client";
import { operationMatcher } from "./counting-fetch.ts";
import { spoolListBody } from "./list-spool.ts";
import { DEFAULT_MAX_LIST_BYTES, limitListBody } from "./list-size-limit.ts";
import type { CollectionName, Upstream } from "./upstream.ts";

/**
 * Attempt timeout of Get Surveys, in ms: the wait for the response headers (an upstream may take
 * a while to start sending a large inventory), then for each next chunk of the body.
 */
export const LIST_TIMEOUT_MS = 120_000;

/** Options of {@link createClientUpstream}: the client's, of which sds-sync sets a few. */
export type ClientUpstreamOptions = Pick<
  ClientOptions,
  "baseUrl" | "apiKey" | "fetch" | "maxConcurrency" | "timeout" | "retry" | "logger" | "paths"
> & {
  /** Largest Get Surveys body in bytes (`SYNC_MAX_LIST_BYTES`): past it the list fails. @default {@link DEFAULT_MAX_LIST_BYTES} */
  readonly maxListBytes?: number;
};

/**
 * The production {@link Upstream}: `@sds/client`, the live list read as a stream
 * (`surveys.stream()`: one survey in memory at a time, validated on its own, so one malformed
 * survey never costs the other 99,999), drained off the network into a spool (`list-spool.ts`)
 * so a slow read never meets the upstream's idle timeout. The list holds one of the client's
 * concurrency slots while it streams: give the client one more than the cycle's fetch concurrency.
 */
export function createClientUpstream(options: ClientUpstreamOptions): Upstream {
  const { maxListBytes = DEFAULT_MAX_LIST_BYTES, ...clientOptions } = options;
  // The spool drains the list off the network at once, through the size limit (so the spool never
  // holds more than the limit); the client reads it at the cycle's pace. Both find the list by
  // the client's own paths, overrides included.
  const operationOf = operationMatcher(options.paths);
  const fetch = spoolListBody(limitListBody(options.fetch ?? globalThis.fetch, maxListBytes, operationOf), operationOf);
  const sds = createClient({ ...clientOptions, fetch, validation: "loose" });
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
    liveSurveys: (signal) => sds.surveys.stream({ signal, timeout: LIST_TIMEOUT_MS }),
    async qualifications(surveyId, signal) {
      return (await sds.surveys.qualifications(surveyId, { signal })).Qualifications;
    },
    async quotas(surveyId, signal) {
      return (await sds.surveys.quotas(surveyId, { signal })).Quotas;
    },
    collection: (name, signal) => collections[name](signal),
  };
}
