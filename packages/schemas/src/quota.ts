import { z } from "zod";
import { observedEnvelopeShape } from "./envelope.ts";
import { integer } from "./internal/wire.ts";

/**
 * One condition of a quota. Its fields are not shown anywhere, so it is an open record;
 * unknown fields are kept as they came.
 */
export const QuotaCondition = z.looseObject({});
export type QuotaCondition = z.infer<typeof QuotaCondition>;

/** One quota of a survey: shaped by what public integrations show (`QuotaId`, `Conditions`). Unverified. */
export const SurveyQuota = z.looseObject({
  QuotaId: integer(),
  Conditions: z.array(QuotaCondition).optional(),
});
export type SurveyQuota = z.infer<typeof SurveyQuota>;

/** Response of Get Survey Quotas (observed, unverified): `{ hasError, Quotas: [...] }`. */
export const SurveyQuotasResponse = z.looseObject({
  ...observedEnvelopeShape,
  Quotas: z.array(SurveyQuota),
  SurveyId: integer().optional(),
});
export type SurveyQuotasResponse = z.infer<typeof SurveyQuotasResponse>;
