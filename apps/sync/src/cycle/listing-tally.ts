import type { InvalidItem, Survey } from "@sds/schemas";
import type { Logger } from "pino";
import type { QuarantineInput } from "../inventory-store/store.ts";
import { quarantineItemText, quarantineOfItem } from "./quarantine.ts";

/** Copies of a repeated survey kept for its quarantine entry: enough to show how they differ. */
const KEPT_COPIES = 2;

/** A survey of the list with its JSON. */
export interface ListedSurvey {
  readonly survey: Survey;
  readonly raw: string;
}

/**
 * What the cycle keeps of the live list as it streams past: the ids listed (to find the surveys
 * that closed), the ids of quarantined items that still name their survey (never closed for
 * them), and the repeated ids.
 *
 * A survey id listed twice cannot be trusted either way: which copy is the survey? Ids repeated
 * in the previous committed list are set aside from the start (their copies are held back and
 * counted); an id seen once after all is processed when the list ends, a repeated one is
 * quarantined and its stored version kept. An id found repeated that was not set aside is in
 * {@link ListingTally.repeated}: its first copy may already be written, so the cycle starts over
 * with it set aside.
 */
export class ListingTally {
  readonly listed = new Set<number>();
  readonly present = new Set<number>();
  /** Ids found repeated that were not set aside: the cycle must start over. */
  readonly repeated = new Set<number>();
  readonly #setAside: ReadonlySet<number>;
  readonly #held = new Map<number, { first: ListedSurvey; copies: string[]; count: number }>();
  #quarantined = 0;
  #repeatedQuarantined: number[] = [];

  /** @param setAside ids whose copies are held back until the list ends */
  constructor(setAside: ReadonlySet<number>) {
    this.#setAside = setAside;
  }

  /** Records a listed survey; true when the cycle should process it now. */
  list(listed: ListedSurvey): boolean {
    const id = listed.survey.SurveyId;
    if (this.#setAside.has(id)) {
      const held = this.#held.get(id);
      if (held) {
        held.count += 1;
        if (held.copies.length < KEPT_COPIES) held.copies.push(listed.raw);
      } else {
        this.#held.set(id, { first: listed, copies: [listed.raw], count: 1 });
      }
      return false;
    }
    if (this.listed.has(id)) {
      this.repeated.add(id);
      return false;
    }
    this.listed.add(id);
    return true;
  }

  /**
   * Once the list is complete: the set-aside surveys listed exactly once (to process now) and
   * the quarantine entries of those listed more than once (kept as stored, never closed).
   */
  settleSetAside(): { readonly once: readonly ListedSurvey[]; readonly quarantine: readonly QuarantineInput[] } {
    const once: ListedSurvey[] = [];
    const quarantine: QuarantineInput[] = [];
    for (const [id, held] of this.#held) {
      if (held.count === 1) {
        this.listed.add(id);
        once.push(held.first);
        continue;
      }
      this.present.add(id);
      this.#quarantined += 1;
      this.#repeatedQuarantined.push(id);
      quarantine.push({
        key: `surveys:${id}`,
        surveyId: id,
        source: "surveys",
        item: quarantineItemText(`[${held.copies.join(",")}]`),
        issues: JSON.stringify([
          {
            path: ["SurveyId"],
            code: "duplicate_id",
            message: `listed ${held.count} times in one list; the stored version is kept`,
          },
        ]),
      });
    }
    return { once, quarantine };
  }

  /** Ids the committed list repeated: set aside from the start of the next cycle. */
  repeatedIds(): ReadonlySet<number> {
    return new Set(this.#repeatedQuarantined);
  }

  /** The quarantine entry of a malformed item, remembering the survey it names. */
  quarantine(invalid: InvalidItem): QuarantineInput {
    return this.refuse(quarantineOfItem(invalid));
  }

  /** Counts a quarantined item of the list, remembering the survey it names (never closed for it). */
  refuse(item: QuarantineInput): QuarantineInput {
    this.#quarantined += 1;
    if (item.surveyId !== null) this.present.add(item.surveyId);
    return item;
  }

  report(logger: Logger): void {
    if (this.#repeatedQuarantined.length > 0) {
      logger.warn(
        { repeated: this.#repeatedQuarantined.length, surveyIds: this.#repeatedQuarantined.slice(0, 20) },
        "the live list repeated survey ids; their stored versions are kept and the ids quarantined",
      );
    }
    if (this.#quarantined > 0)
      logger.warn({ quarantined: this.#quarantined, surveyIds: [...this.present].slice(0, 20) }, "surveys quarantined");
  }
}
