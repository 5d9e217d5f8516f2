import {
  DEFAULT_PRIOR_STRENGTH,
  DEFAULT_YIELD_CUTOFF,
  type RoutingPolicy,
  type SurveyMatcherOptions,
} from "@sds/routing";
import type { Logger } from "pino";
import type { InventoryReader } from "./inventory-reader.ts";
import type { LoopConfig } from "./loop-settings.ts";
import type { RoutingDataRefresher } from "./routing-data-refresher.ts";
import type { RoutingFacts } from "./routing-facts.ts";

/** What fills each placeholder of a SurveyUrl: `[#vq_tid#]` and `[#vq_tuid#]` always, and the configured `[%NAME%]` ones. */
export function entryPlaceholders(config: LoopConfig): Record<string, "token" | "uid"> {
  return { vq_tid: "token", vq_tuid: "uid", ...(config.entryPlaceholders ?? { RID: "token" }) };
}

/** The respondent rules of the configuration. */
export function routingPolicy(config: LoopConfig): RoutingPolicy {
  const caps = {
    ...(config.maxEntriesPerDay === undefined ? {} : { entriesPer24h: config.maxEntriesPerDay }),
    ...(config.maxCompletesPerDay === undefined ? {} : { completesPer24h: config.maxCompletesPerDay }),
  };
  return {
    reentryAfter: config.reentryAfter ?? [],
    groupBlockingOutcomes: config.groupBlockingOutcomes ?? "all",
    ...(config.groupLookbackSeconds === undefined ? {} : { groupLookbackMs: config.groupLookbackSeconds * 1000 }),
    ...(Object.keys(caps).length === 0 ? {} : { caps }),
  };
}

/** The matcher's options: the respondent rules and yield ranking's prior and cut-off. */
export function matcherOptions(config: LoopConfig): SurveyMatcherOptions {
  return {
    policy: routingPolicy(config),
    yield: {
      priorStrength: config.yieldPriorStrength ?? DEFAULT_PRIOR_STRENGTH,
      cutoff: {
        entries: config.yieldCutoffEntries ?? DEFAULT_YIELD_CUTOFF.entries,
        cooldownMs:
          config.yieldCooldownSeconds === undefined
            ? DEFAULT_YIELD_CUTOFF.cooldownMs
            : config.yieldCooldownSeconds * 1000,
      },
    },
  };
}

/** The StudyTypeIds whose name in the StudyTypes collection says re-contact (`Recontact`, `Re-contact`, `ReContact Study`). */
export function recontactStudyTypeIds(body: unknown): number[] {
  const ids: number[] = [];
  const lists = Array.isArray(body)
    ? [body]
    : typeof body === "object" && body !== null
      ? Object.values(body).filter(Array.isArray)
      : [];
  for (const list of lists as unknown[][]) {
    for (const item of list) {
      if (typeof item !== "object" || item === null) continue;
      const { Id, StudyTypeId, Name } = item as Record<string, unknown>;
      const id = typeof Id === "number" ? Id : typeof StudyTypeId === "number" ? StudyTypeId : undefined;
      if (id !== undefined && typeof Name === "string" && /re-?contact/i.test(Name)) ids.push(id);
    }
  }
  return ids;
}

/**
 * Which study types are re-contact studies, from the stored StudyTypes collection; false while
 * it is not stored yet and no cycle has succeeded (surveys with a study type stay out meanwhile,
 * see RoutingFacts). A successful cycle that stored no StudyTypes means the upstream does not
 * serve it: then only SYNC_RECONTACT_STUDY_TYPES marks re-contact studies, and `logger` says so.
 */
export async function readRecontactStudyTypes(
  inventory: InventoryReader,
  facts: RoutingFacts,
  logger?: Logger,
): Promise<boolean> {
  const studyTypes = await inventory.getCollection("studyTypes");
  if (studyTypes !== undefined) {
    facts.setRecontactStudyTypes(recontactStudyTypeIds(studyTypes.body));
    return true;
  }
  if ((await inventory.lastSuccessfulRun()) === undefined) return false;
  if (!facts.studyTypesKnown)
    logger?.warn(
      "the StudyTypes collection could not be read: only the study types of SYNC_RECONTACT_STUDY_TYPES are taken for re-contact studies",
    );
  facts.setRecontactStudyTypes([]);
  return true;
}

/** When and how {@link refreshRoutingData} runs: the runtime's stop and clock, and where it warns. */
export interface RoutingRefreshRun {
  readonly signal: AbortSignal;
  /** The runtime clock's time, in epoch ms: what is due is judged by it. */
  readonly now: number;
  readonly logger: Logger;
}

/** After a cycle of the leader: the re-contact study types from the stored collection, then the due fetches. */
export async function refreshRoutingData(
  inventory: InventoryReader,
  facts: RoutingFacts,
  refresher: RoutingDataRefresher,
  { signal, now, logger }: RoutingRefreshRun,
): Promise<void> {
  try {
    await readRecontactStudyTypes(inventory, facts, logger);
    await refresher.refresh(signal, now);
  } catch (error) {
    if (!signal.aborted)
      logger.warn(
        { err: error },
        "the routing data (survey groups, re-contact lists, stats) could not be refreshed; the last read stays in use",
      );
  }
}
