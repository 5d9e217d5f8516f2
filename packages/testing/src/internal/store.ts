import type { SupplierAccount, Survey, SurveyQuota, UrlSettingsBody } from "@sds/schemas";
import { buildSupplierAccount } from "../factories/account.ts";
import { buildRecontactRespondents, type GeneratedRecontactRespondent } from "../factories/recontact-respondents.ts";
import type { GeneratedSurveyGroup } from "../factories/survey-groups.ts";
import { buildSurveyStats } from "../factories/survey-stats.ts";
import { createSurveyFactory } from "../factories/survey.ts";
import { fakeErrorCodes } from "../fake/constants.ts";
import type {
  FakeSupplierInit,
  QualificationInit,
  RecontactRespondentInit,
  SupplierKey,
  SurveyInit,
  SurveyPatch,
  SurveyStatsInit,
} from "../fake/types.ts";
import { RECONTACT_STUDY_TYPE_ID } from "../fixtures/collections.ts";
import { ControlError } from "./control-error.ts";
import { checkGroupId, recontactRecords, statsRecord } from "./extras-checks.ts";
import { checkSurvey, qualificationRecords, quotaRecords } from "./record-checks.ts";
import { materialize, surveyJson, type SurveyEntry } from "./survey-entry.ts";
import { SurveyGroupRegistry } from "./survey-group-registry.ts";
import { nextTimestamp } from "./timestamps.ts";

interface SupplierEntry {
  readonly supplierId: number;
  readonly apiKey: string;
  account: SupplierAccount;
  /** The supplier's survey ids, kept sorted so lists come out ordered by `SurveyId`. */
  readonly surveyIds: number[];
  liveListJson: string | undefined;
}

const FIRST_SURVEY_ID = 100_001;

function insertSorted(ids: number[], id: number): void {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ids[middle] as number) < id) low = middle + 1;
    else high = middle;
  }
  ids.splice(low, 0, id);
}

/** The state of the fake: suppliers, their accounts and their surveys. */
export class Store {
  readonly #seed: number;
  readonly #now: () => number;
  readonly #suppliers = new Map<number, SupplierEntry>();
  readonly #supplierByKey = new Map<string, SupplierEntry>();
  readonly #surveys = new Map<number, SurveyEntry>();
  readonly #groups = new SurveyGroupRegistry();
  #nextSurveyId = FIRST_SURVEY_ID;

  constructor(seed: number, now: () => number, suppliers: readonly FakeSupplierInit[]) {
    this.#seed = seed;
    this.#now = now;
    const factory = createSurveyFactory({ seed, referenceTime: now() });
    for (const init of suppliers) {
      if (!Number.isSafeInteger(init.supplierId) || init.supplierId <= 0) {
        throw new RangeError(`supplierId must be a positive integer, got ${String(init.supplierId)}`);
      }
      if (this.#suppliers.has(init.supplierId)) throw new RangeError(`supplier ${init.supplierId} is defined twice`);
      if (init.apiKey.trim() === "" || /[\r\n]/.test(init.apiKey))
        throw new RangeError(`supplier ${init.supplierId} needs a non-empty single-line apiKey`);
      if (this.#supplierByKey.has(init.apiKey)) throw new RangeError(`two suppliers share one apiKey`);
      const account = buildSupplierAccount({
        supplierId: init.supplierId,
        seed,
        overrides: { ...(init.name === undefined ? {} : { Name: init.name }), ...init.account },
      });
      const supplier: SupplierEntry = {
        supplierId: init.supplierId,
        apiKey: init.apiKey,
        account,
        surveyIds: [],
        liveListJson: undefined,
      };
      this.#suppliers.set(init.supplierId, supplier);
      this.#supplierByKey.set(init.apiKey, supplier);

      const surveys = init.surveys ?? 20;
      if (typeof surveys === "number") {
        this.#generate(supplier, factory, surveys, true);
      } else {
        for (const surveyInit of surveys) this.#add(supplier, surveyInit);
      }
      this.#generate(supplier, factory, init.closedSurveys ?? 0, false);
      this.#groups.seed(
        supplier.supplierId,
        supplier.surveyIds.flatMap((id) => this.#surveys.get(id)?.survey ?? []),
        seed,
      );
    }
  }

  #generate(
    supplier: SupplierEntry,
    factory: ReturnType<typeof createSurveyFactory>,
    count: number,
    live: boolean,
  ): void {
    if (!Number.isSafeInteger(count) || count < 0)
      throw new RangeError(`survey counts must be non-negative integers, got ${String(count)}`);
    for (let index = 0; index < count; index++) {
      const survey = factory.build({ SurveyId: this.#takeSurveyId() });
      this.#surveys.set(survey.SurveyId, {
        supplierId: supplier.supplierId,
        live,
        survey,
        qualifications: undefined,
        quotas: undefined,
        recontacts: undefined,
        stats: undefined,
        json: undefined,
      });
      // Generated ids only grow, so appending keeps the list sorted.
      supplier.surveyIds.push(survey.SurveyId);
    }
  }

  #takeSurveyId(): number {
    while (this.#surveys.has(this.#nextSurveyId)) this.#nextSurveyId++;
    return this.#nextSurveyId++;
  }

  get seed(): number {
    return this.#seed;
  }

  /** Every supplier's id and key, in the order they were defined. */
  keys(): SupplierKey[] {
    return [...this.#suppliers.values()].map(({ supplierId, apiKey }) => ({ supplierId, apiKey }));
  }

  /** The supplier a key authenticates as. */
  supplierIdForKey(apiKey: string | null): number | undefined {
    return apiKey === null ? undefined : this.#supplierByKey.get(apiKey)?.supplierId;
  }

  #supplier(supplierId: number): SupplierEntry {
    const supplier = this.#suppliers.get(supplierId);
    if (!supplier) throw new ControlError(404, fakeErrorCodes.resourceNotFound, `no supplier ${supplierId}`);
    return supplier;
  }

  account(supplierId: number): SupplierAccount {
    return structuredClone(this.#supplier(supplierId).account);
  }

  replaceUrlSettings(supplierId: number, field: "RedirectUrls" | "S2SUrls", body: UrlSettingsBody): void {
    const supplier = this.#supplier(supplierId);
    // Only the five documented fields are stored: unknown fields of the body are ignored.
    const { Enabled, CompleteUrl, TerminateUrl, OverQuotaUrl, SecurityTerminateUrl } = body;
    supplier.account = {
      ...supplier.account,
      [field]: { Enabled, CompleteUrl, TerminateUrl, OverQuotaUrl, SecurityTerminateUrl },
    };
  }

  /** The JSON array of a supplier's live surveys, cached until one of its surveys changes. */
  liveSurveysJson(supplierId: number): string {
    const supplier = this.#supplier(supplierId);
    if (supplier.liveListJson === undefined) {
      const parts: string[] = [];
      for (const id of supplier.surveyIds) {
        const entry = this.#surveys.get(id);
        if (entry?.live) parts.push(surveyJson(entry));
      }
      supplier.liveListJson = `[${parts.join(",")}]`;
    }
    return supplier.liveListJson;
  }

  /** A survey if it exists and belongs to the supplier. */
  ownedSurvey(supplierId: number, surveyId: number): SurveyEntry | undefined {
    const entry = this.#surveys.get(surveyId);
    return entry?.supplierId === supplierId ? entry : undefined;
  }

  /** Qualifications and quotas of an entry, generated on first use. */
  details(entry: SurveyEntry): ReturnType<typeof materialize> {
    return materialize(entry, this.#seed);
  }

  /** The supplier's survey ids, sorted. */
  surveyIdsOf(supplierId: number): readonly number[] {
    return this.#supplier(supplierId).surveyIds;
  }

  entry(surveyId: number): SurveyEntry | undefined {
    return this.#surveys.get(surveyId);
  }

  #existing(surveyId: number): SurveyEntry {
    const entry = this.#surveys.get(surveyId);
    if (!entry) throw new ControlError(404, fakeErrorCodes.surveyNotFound, `no survey ${surveyId}`);
    return entry;
  }

  #changed(entry: SurveyEntry): void {
    entry.json = undefined;
    const supplier = this.#suppliers.get(entry.supplierId);
    if (supplier) supplier.liveListJson = undefined;
  }

  /** Adds a survey; a survey with `Has_Survey_Groups` gets a group of its own, so the flag is true to the groups served. */
  addSurvey(supplierId: number, init: SurveyInit = {}): SurveyEntry {
    const entry = this.#add(this.#supplier(supplierId), init);
    if (entry.survey.Has_Survey_Groups)
      this.#groups.set(this.#groups.freeGroupId(), supplierId, [entry.survey.SurveyId]);
    return entry;
  }

  #add(supplier: SupplierEntry, init: SurveyInit): SurveyEntry {
    const supplierId = supplier.supplierId;
    const requestedId = init.survey?.SurveyId;
    if (requestedId !== undefined && (!Number.isSafeInteger(requestedId) || requestedId <= 0)) {
      throw new ControlError(
        400,
        fakeErrorCodes.validationFailed,
        `SurveyId must be a positive integer, got ${JSON.stringify(requestedId)}`,
      );
    }
    if (requestedId !== undefined && this.#surveys.has(requestedId)) {
      throw new ControlError(409, fakeErrorCodes.validationFailed, `survey ${requestedId} already exists`);
    }
    const now = this.#now();
    const factory = createSurveyFactory({ seed: this.#seed, referenceTime: now });
    const surveyId = requestedId ?? this.#takeSurveyId();
    const generated = factory.build({ SurveyId: surveyId, LastUpdatedOnUTC: nextTimestamp(now) });
    const survey: Survey = { ...generated, ...init.survey, SurveyId: surveyId };
    if (init.qualifications && init.survey?.Has_Qualifications === undefined)
      survey.Has_Qualifications = init.qualifications.length > 0;
    if (init.quotas && init.survey?.Has_Quotas === undefined) survey.Has_Quotas = init.quotas.length > 0;
    if (!init.allowInvalid) checkSurvey(survey);
    const entry: SurveyEntry = {
      supplierId,
      live: init.live ?? true,
      survey,
      qualifications: init.qualifications
        ? qualificationRecords(surveyId, survey.Qual_LastUpdatedOnUTC, init.qualifications)
        : undefined,
      quotas: init.quotas ? quotaRecords(init.quotas) : undefined,
      recontacts: undefined,
      stats: undefined,
      json: undefined,
    };
    this.#surveys.set(surveyId, entry);
    insertSorted(supplier.surveyIds, surveyId);
    supplier.liveListJson = undefined;
    return entry;
  }

  updateSurvey(surveyId: number, patch: SurveyPatch, allowInvalid = false): SurveyEntry {
    const entry = this.#existing(surveyId);
    if ("SurveyId" in patch && patch.SurveyId !== surveyId) {
      throw new ControlError(400, fakeErrorCodes.validationFailed, "SurveyId cannot be changed");
    }
    this.details(entry);
    const survey: Survey = { ...entry.survey, ...patch, SurveyId: surveyId };
    if (patch.LastUpdatedOnUTC === undefined)
      survey.LastUpdatedOnUTC = nextTimestamp(this.#now(), entry.survey.LastUpdatedOnUTC);
    if (!allowInvalid) checkSurvey(survey);
    entry.survey = survey;
    this.#changed(entry);
    return entry;
  }

  setLive(surveyId: number, live: boolean): SurveyEntry {
    const entry = this.#existing(surveyId);
    this.details(entry);
    if (entry.live !== live) {
      entry.live = live;
      entry.survey = { ...entry.survey, LastUpdatedOnUTC: nextTimestamp(this.#now(), entry.survey.LastUpdatedOnUTC) };
      this.#changed(entry);
    }
    return entry;
  }

  removeSurvey(surveyId: number): void {
    const entry = this.#existing(surveyId);
    this.#surveys.delete(surveyId);
    this.#groups.drop(surveyId);
    const supplier = this.#suppliers.get(entry.supplierId);
    if (supplier) {
      supplier.surveyIds.splice(supplier.surveyIds.indexOf(surveyId), 1);
      supplier.liveListJson = undefined;
    }
  }

  replaceQualifications(surveyId: number, qualifications: readonly QualificationInit[]): SurveyEntry {
    const entry = this.#existing(surveyId);
    this.details(entry);
    const moved = nextTimestamp(this.#now(), entry.survey.LastUpdatedOnUTC, entry.survey.Qual_LastUpdatedOnUTC);
    const records = qualificationRecords(surveyId, moved, qualifications);
    entry.qualifications = records;
    entry.survey = {
      ...entry.survey,
      Has_Qualifications: records.length > 0,
      Qual_LastUpdatedOnUTC: moved,
      LastUpdatedOnUTC: moved,
    };
    this.#changed(entry);
    return entry;
  }

  replaceQuotas(surveyId: number, quotas: readonly SurveyQuota[]): SurveyEntry {
    const entry = this.#existing(surveyId);
    this.details(entry);
    const records = quotaRecords(quotas);
    const moved = nextTimestamp(this.#now(), entry.survey.LastUpdatedOnUTC, entry.survey.Quota_LastUpdatedOnUTC);
    entry.quotas = records;
    entry.survey = {
      ...entry.survey,
      Has_Quotas: records.length > 0,
      Quota_LastUpdatedOnUTC: moved,
      LastUpdatedOnUTC: moved,
    };
    this.#changed(entry);
    return entry;
  }

  /** The groups of a survey, as Get Survey Groups serves them. */
  surveyGroupsOf(surveyId: number): GeneratedSurveyGroup[] {
    return this.#groups.groupsOf(surveyId);
  }

  /** Every group of a supplier. */
  surveyGroupsOfSupplier(supplierId: number): GeneratedSurveyGroup[] {
    this.#supplier(supplierId);
    return this.#groups.groupsOfSupplier(supplierId);
  }

  /** Sets a group's surveys (see `FakeSupplierApi.setSurveyGroup`); `Has_Survey_Groups` follows membership. */
  setSurveyGroup(groupId: number, surveyIds: readonly number[]): GeneratedSurveyGroup | undefined {
    checkGroupId(groupId);
    const entries = surveyIds.map((surveyId) => this.#existing(surveyId));
    const owner = this.#groups.supplierOf(groupId) ?? entries[0]?.supplierId;
    if (owner === undefined) throw new ControlError(404, fakeErrorCodes.resourceNotFound, `no survey group ${groupId}`);
    const stranger = entries.find((entry) => entry.supplierId !== owner);
    if (stranger) {
      throw new ControlError(
        409,
        fakeErrorCodes.validationFailed,
        `survey ${stranger.survey.SurveyId} belongs to supplier ${stranger.supplierId}, survey group ${groupId} to supplier ${owner}`,
      );
    }
    for (const surveyId of this.#groups.set(groupId, owner, surveyIds)) {
      const entry = this.#surveys.get(surveyId);
      const grouped = this.#groups.isGrouped(surveyId);
      if (entry && entry.survey.Has_Survey_Groups !== grouped) {
        entry.survey = {
          ...entry.survey,
          Has_Survey_Groups: grouped,
          LastUpdatedOnUTC: nextTimestamp(this.#now(), entry.survey.LastUpdatedOnUTC),
        };
        this.#changed(entry);
      }
    }
    return this.#groups.group(groupId);
  }

  /** Moves a survey into a group, creating the group when new. */
  addToSurveyGroup(groupId: number, surveyId: number): GeneratedSurveyGroup {
    checkGroupId(groupId);
    const members = this.#groups.group(groupId)?.SurveyGroupSurveys ?? [];
    return this.setSurveyGroup(groupId, [...members, surveyId]) as GeneratedSurveyGroup;
  }

  /** Moves a survey out of a group; `undefined` once the group is empty and gone. */
  removeFromSurveyGroup(groupId: number, surveyId: number): GeneratedSurveyGroup | undefined {
    checkGroupId(groupId);
    const group = this.#groups.group(groupId);
    if (!group) throw new ControlError(404, fakeErrorCodes.resourceNotFound, `no survey group ${groupId}`);
    this.#existing(surveyId);
    return this.setSurveyGroup(
      groupId,
      group.SurveyGroupSurveys.filter((id) => id !== surveyId),
    );
  }

  /** The re-contact list as served: empty unless the study type is Recontact, generated on first use. */
  recontactsOf(entry: SurveyEntry): GeneratedRecontactRespondent[] {
    if (entry.survey.StudyTypeId !== RECONTACT_STUDY_TYPE_ID) return [];
    entry.recontacts ??= buildRecontactRespondents(entry.survey, { seed: this.#seed });
    return entry.recontacts;
  }

  replaceRecontactRespondents(surveyId: number, respondents: readonly RecontactRespondentInit[]): SurveyEntry {
    const entry = this.#existing(surveyId);
    if (entry.survey.StudyTypeId !== RECONTACT_STUDY_TYPE_ID) {
      throw new ControlError(
        409,
        fakeErrorCodes.validationFailed,
        `survey ${surveyId} is no re-contact survey (StudyTypeId ${String(entry.survey.StudyTypeId)}, not ${RECONTACT_STUDY_TYPE_ID})`,
      );
    }
    entry.recontacts = recontactRecords(respondents);
    return entry;
  }

  /** The statistics as served: set by a test, or generated from the survey as it is now. */
  statsOf(entry: SurveyEntry): SurveyStatsInit {
    return entry.stats ?? buildSurveyStats(entry.survey, { seed: this.#seed });
  }

  setSurveyStats(surveyId: number, stats: SurveyStatsInit | null): SurveyEntry {
    const entry = this.#existing(surveyId);
    entry.stats = stats === null ? undefined : statsRecord(stats);
    return entry;
  }
}
