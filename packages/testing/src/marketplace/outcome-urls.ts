import { fillPlaceholders } from "@sds/routing";
import type { UrlSettings, UrlSettingsUrlField } from "@sds/schemas";
import type { RespondentOutcome } from "./types.ts";

/** The account URL field each outcome uses. */
export const outcomeFields: Readonly<Record<RespondentOutcome, UrlSettingsUrlField>> = {
  complete: "CompleteUrl",
  terminate: "TerminateUrl",
  overquota: "OverQuotaUrl",
  security: "SecurityTerminateUrl",
};

/**
 * The account's URL for an outcome with the marketplace's placeholders filled: `[#vq_tid#]` and
 * `[%RID%]` with the entry token, `[#vq_tuid#]` with the supplier's respondent id.
 */
export function outcomeUrl(settings: UrlSettings, outcome: RespondentOutcome, token: string, uid: string): string {
  const template = settings[outcomeFields[outcome]].replaceAll("[%RID%]", encodeURIComponent(token));
  return fillPlaceholders(
    template,
    new Map([
      ["vq_tid", token],
      ["vq_tuid", uid],
    ]),
  );
}
