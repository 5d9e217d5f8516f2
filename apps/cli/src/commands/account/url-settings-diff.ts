import { urlSettingsUrlFields, type UrlSettings, type UrlSettingsBody } from "@sds/schemas";
import type { Styles } from "../../framework/styles.ts";

/** The fields of a redirect or S2S update: `Enabled` and the four URLs. */
export const urlSettingsFields = ["Enabled", ...urlSettingsUrlFields] as const;
/** One of {@link urlSettingsFields}. */
export type UrlSettingsField = (typeof urlSettingsFields)[number];

/** One field that differs between the current settings and the new ones. */
export interface UrlSettingsChange {
  readonly field: UrlSettingsField;
  readonly before: string | boolean;
  readonly after: string | boolean;
}

/** The fields whose value differs, in the order of {@link urlSettingsFields}. */
export function diffUrlSettings(before: UrlSettings, after: UrlSettingsBody): UrlSettingsChange[] {
  return urlSettingsFields.flatMap((field) =>
    before[field] === after[field] ? [] : [{ field, before: before[field], after: after[field] }],
  );
}

/** A change list as a terminal shows it: the field, then `-` the old value and `+` the new. */
export function renderUrlSettingsDiff(changes: readonly UrlSettingsChange[], styles: Styles): string {
  return changes
    .map((change) => {
      if (change.field === "Enabled")
        return `  ${styles.bold("Enabled")}  ${styles.red(String(change.before))} → ${styles.green(String(change.after))}\n`;
      return `  ${styles.bold(change.field)}\n    ${styles.red(`- ${String(change.before)}`)}\n    ${styles.green(`+ ${String(change.after)}`)}\n`;
    })
    .join("");
}
