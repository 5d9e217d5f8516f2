import { buildSurveyGroups, type GeneratedSurveyGroup } from "../factories/survey-groups.ts";

interface GroupEntry {
  readonly supplierId: number;
  /** Ascending, each once. */
  surveyIds: number[];
}

const FIRST_GROUP_ID = 7001;

/**
 * The survey groups of the fake: one membership table, so every survey of a group answers the
 * same group (if A's groups say group 7 is {A, B, C}, so do B's and C's).
 */
export class SurveyGroupRegistry {
  readonly #groups = new Map<number, GroupEntry>();
  /** Survey id to the ids of its groups. */
  readonly #bySurvey = new Map<number, Set<number>>();
  #nextGroupId = FIRST_GROUP_ID;

  /** Groups a supplier's surveys (sorted by id) with {@link buildSurveyGroups}: each flagged survey joins a group. */
  seed(supplierId: number, surveys: readonly Parameters<typeof buildSurveyGroups>[0][number][], seed: number): void {
    for (const group of buildSurveyGroups(surveys, { seed, firstGroupId: this.#nextGroupId })) {
      this.set(group.SurveyGroupID, supplierId, group.SurveyGroupSurveys);
    }
  }

  /** A group id no group has. */
  freeGroupId(): number {
    while (this.#groups.has(this.#nextGroupId)) this.#nextGroupId++;
    return this.#nextGroupId;
  }

  /** The supplier a group belongs to, or `undefined` for an unknown group. */
  supplierOf(groupId: number): number | undefined {
    return this.#groups.get(groupId)?.supplierId;
  }

  /** The group as served, or `undefined`. */
  group(groupId: number): GeneratedSurveyGroup | undefined {
    const entry = this.#groups.get(groupId);
    return entry && { SurveyGroupID: groupId, SurveyGroupSurveys: [...entry.surveyIds] };
  }

  /** The groups of a survey, by id. */
  groupsOf(surveyId: number): GeneratedSurveyGroup[] {
    const ids = [...(this.#bySurvey.get(surveyId) ?? [])].sort((left, right) => left - right);
    return ids.flatMap((groupId) => this.group(groupId) ?? []);
  }

  /** Every group of a supplier, by id. */
  groupsOfSupplier(supplierId: number): GeneratedSurveyGroup[] {
    return [...this.#groups]
      .filter(([, entry]) => entry.supplierId === supplierId)
      .sort(([left], [right]) => left - right)
      .map(([groupId, entry]) => ({ SurveyGroupID: groupId, SurveyGroupSurveys: [...entry.surveyIds] }));
  }

  /** Whether a survey is in any group. */
  isGrouped(surveyId: number): boolean {
    return (this.#bySurvey.get(surveyId)?.size ?? 0) > 0;
  }

  /**
   * Sets a group's surveys (the caller has checked them); empty deletes the group. Returns the
   * surveys whose membership changed.
   */
  set(groupId: number, supplierId: number, surveyIds: readonly number[]): number[] {
    const before = this.#groups.get(groupId)?.surveyIds ?? [];
    const after = [...new Set(surveyIds)].sort((left, right) => left - right);
    for (const surveyId of before) this.#bySurvey.get(surveyId)?.delete(groupId);
    for (const surveyId of after) {
      let groups = this.#bySurvey.get(surveyId);
      if (!groups) this.#bySurvey.set(surveyId, (groups = new Set()));
      groups.add(groupId);
    }
    if (after.length === 0) this.#groups.delete(groupId);
    else this.#groups.set(groupId, { supplierId, surveyIds: after });
    if (groupId >= this.#nextGroupId) this.#nextGroupId = groupId + 1;
    const kept = new Set(after);
    return [
      ...before.filter((surveyId) => !kept.has(surveyId)),
      ...after.filter((surveyId) => !before.includes(surveyId)),
    ];
  }

  /** Takes a deleted survey out of every group (a group left empty is deleted). */
  drop(surveyId: number): void {
    for (const groupId of this.#bySurvey.get(surveyId) ?? []) {
      const entry = this.#groups.get(groupId);
      if (entry)
        this.set(
          groupId,
          entry.supplierId,
          entry.surveyIds.filter((id) => id !== surveyId),
        );
    }
    this.#bySurvey.delete(surveyId);
  }
}
