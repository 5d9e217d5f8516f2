import { z } from "zod";
import { envelopeShape } from "./envelope.ts";
import { RedirectUrl } from "./redirect-url.ts";

/** Encryption of the respondent links, in either direction. */
export const EncryptionSettings = z.looseObject({
  Enabled: z.boolean(),
  /** Names a hash algorithm; allowed values are not shown. */
  Algorithm: z.string(),
  /** `null` when unset. */
  QueryParameter: z.string().nullable(),
  /** A secret: `null` when unset. Never log it; see `maskSecret`. */
  EncryptionKey: z.string().nullable(),
});
export type EncryptionSettings = z.infer<typeof EncryptionSettings>;

const urlSettingsShape = {
  Enabled: z.boolean(),
  /** Target for a completed respondent. */
  CompleteUrl: z.string(),
  /** Target for a terminated respondent. */
  TerminateUrl: z.string(),
  /** Target for an over-quota respondent. */
  OverQuotaUrl: z.string(),
  /** Target for a security-terminated respondent. */
  SecurityTerminateUrl: z.string(),
};

/**
 * Redirect or S2S URL settings as the account returns them. Read leniently: a stored URL that
 * would not pass {@link UrlSettingsBody} today must still be readable so that it can be fixed.
 */
export const UrlSettings = z.looseObject(urlSettingsShape);
export type UrlSettings = z.infer<typeof UrlSettings>;

/**
 * Request body of Update redirect urls and Update S2S redirect urls. The spec does not say which
 * fields are mandatory; all five are required here because the update replaces the settings,
 * and each URL must be absolute http or https (placeholders such as `[%RID%]` or `{rid}` in
 * the query are fine).
 *
 * @example
 * ```ts
 * UrlSettingsBody.parse({
 *   Enabled: true,
 *   CompleteUrl: "https://panel.example/complete?rid=[%RID%]",
 *   TerminateUrl: "https://panel.example/terminate?rid=[%RID%]",
 *   OverQuotaUrl: "https://panel.example/overquota?rid=[%RID%]",
 *   SecurityTerminateUrl: "https://panel.example/security?rid=[%RID%]",
 * });
 * ```
 */
export const UrlSettingsBody = z.looseObject({
  Enabled: z.boolean(),
  CompleteUrl: RedirectUrl,
  TerminateUrl: RedirectUrl,
  OverQuotaUrl: RedirectUrl,
  SecurityTerminateUrl: RedirectUrl,
});
export type UrlSettingsBody = z.infer<typeof UrlSettingsBody>;

/** The names of the four URLs of {@link UrlSettings}, in the order the spec lists them. */
export const urlSettingsUrlFields = ["CompleteUrl", "TerminateUrl", "OverQuotaUrl", "SecurityTerminateUrl"] as const;
export type UrlSettingsUrlField = (typeof urlSettingsUrlFields)[number];

/** The supplier account: the `data` object of Get Supplier Details. */
export const SupplierAccount = z.looseObject({
  /** The supplier identifier, a string (the update paths take it as `SupplierId`). */
  Id: z.string(),
  Name: z.string(),
  Active: z.boolean(),
  IncomingEncryption: EncryptionSettings,
  OutgoingEncryption: EncryptionSettings,
  RedirectUrls: UrlSettings,
  S2SUrls: UrlSettings,
});
export type SupplierAccount = z.infer<typeof SupplierAccount>;

/** Response of Get Supplier Details. */
export const SupplierAccountResponse = z.looseObject({
  ...envelopeShape,
  data: SupplierAccount,
});
export type SupplierAccountResponse = z.infer<typeof SupplierAccountResponse>;
