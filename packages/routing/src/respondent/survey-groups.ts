/**
 * Which surveys belong to which groups (a marketplace's "survey groups": surveys of one study
 * that a respondent may take only one of), both ways: survey → its groups, group → its members.
 * Membership is all there is: a group's members are the surveys whose membership names it, so a
 * survey that leaves a group stops blocking (and being blocked by) the group's other surveys at
 * once. Kept by survey id, independent of whether the survey is live: an entry into a survey
 * that has since closed still keeps its group's other surveys out.
 */
export class SurveyGroups {
  readonly #groupsBySurvey = new Map<number, readonly number[]>();
  readonly #membersByGroup = new Map<number, Set<number>>();

  /** How many surveys have a group. */
  get size(): number {
    return this.#groupsBySurvey.size;
  }

  /** The groups of a survey (`[]` when none). */
  groupsOf(surveyId: number): readonly number[] {
    return this.#groupsBySurvey.get(surveyId) ?? [];
  }

  /** The surveys of a group (empty when none). */
  membersOf(groupId: number): ReadonlySet<number> {
    return this.#membersByGroup.get(groupId) ?? noMembers;
  }

  /**
   * Replaces the groups of a survey (`[]` takes it out of every group).
   *
   * @throws TypeError when a group id is not an integer.
   */
  set(surveyId: number, groupIds: readonly number[]): void {
    for (const groupId of groupIds)
      if (!Number.isInteger(groupId))
        throw new TypeError(`survey ${surveyId}: group ids must be integers, got ${groupId}`);
    for (const groupId of this.groupsOf(surveyId)) {
      const members = this.#membersByGroup.get(groupId);
      members?.delete(surveyId);
      if (members?.size === 0) this.#membersByGroup.delete(groupId);
    }
    const distinct = [...new Set(groupIds)].sort((left, right) => left - right);
    if (distinct.length === 0) {
      this.#groupsBySurvey.delete(surveyId);
      return;
    }
    this.#groupsBySurvey.set(surveyId, distinct);
    for (const groupId of distinct) {
      let members = this.#membersByGroup.get(groupId);
      if (members === undefined) {
        members = new Set();
        this.#membersByGroup.set(groupId, members);
      }
      members.add(surveyId);
    }
  }
}

const noMembers: ReadonlySet<number> = new Set();
