import type { OptionSpecs } from "../../framework/command.ts";
import type { UrlSettingsField } from "./url-settings-diff.ts";

// What `sds account set-redirects` and `set-s2s` declare, apart from what they do: their help
// needs this, and the update reads the schemas (zod), which help must not load.

/** The options of `sds account set-redirects` and `sds account set-s2s`. */
export const urlSettingsOptions = {
  complete: { type: "string", valueName: "URL", description: "CompleteUrl: where a completed respondent goes" },
  terminate: { type: "string", valueName: "URL", description: "TerminateUrl: where a terminated respondent goes" },
  "over-quota": { type: "string", valueName: "URL", description: "OverQuotaUrl: where an over-quota respondent goes" },
  "security-terminate": {
    type: "string",
    valueName: "URL",
    description: "SecurityTerminateUrl: where a security-terminated respondent goes",
  },
  enable: { type: "boolean", description: "set Enabled to true" },
  disable: { type: "boolean", description: "set Enabled to false" },
  "from-file": {
    type: "string",
    valueName: "FILE",
    isPath: true,
    description: "read any of the five fields from a JSON file (- for stdin); flags win over the file",
  },
  "dry-run": { type: "boolean", description: "print what would change, send nothing" },
} as const satisfies OptionSpecs;

/** `--token-param` of the commands that point all four URLs at an sds-sync. */
export const tokenParamOption = {
  "token-param": {
    type: "string",
    valueName: "NAME",
    description: "the query parameter sds-sync reads the token from, its SYNC_OUTCOMES_TOKEN_PARAM (default vq_token)",
  },
} as const satisfies OptionSpecs;

/** Which settings a command updates. */
export interface UrlSettingsTarget {
  /** The field of the account, `RedirectUrls` or `S2SUrls`. */
  readonly accountField: "RedirectUrls" | "S2SUrls";
  /** How messages name it: `redirect URLs`, `S2S URLs`. */
  readonly label: string;
  /** Fields a command sets itself (`set-s2s --receiver`); the file and the flags go on top. */
  readonly preset?: Readonly<Partial<Record<UrlSettingsField, string | boolean>>>;
}
