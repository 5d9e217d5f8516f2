import { encryptionSigning, MIN_KEY_LENGTH, type EncryptionSigning } from "@sds/routing";
import type { EncryptionSettings } from "@sds/schemas";

/**
 * What one of the account's encryption settings means for the loop, decided once per account
 * read rather than on every request: a setting the marketplace cannot have meant (enabled with
 * no key, an algorithm no one knows) is misconfiguration, never a reason to accept unsigned
 * calls (failing open) nor to answer 500 on every call.
 */
export type EncryptionVerdict =
  | { readonly kind: "off" }
  | { readonly kind: "on"; readonly signing: EncryptionSigning }
  | { readonly kind: "misconfigured"; readonly problem: string };

/** The verdict on one `IncomingEncryption` or `OutgoingEncryption`. `name` says which, for the problem's text. */
export function encryptionVerdict(
  settings: EncryptionSettings,
  name: "IncomingEncryption" | "OutgoingEncryption",
): EncryptionVerdict {
  if (!settings.Enabled) return { kind: "off" };
  if (settings.EncryptionKey === null || settings.EncryptionKey.trim() === "")
    return { kind: "misconfigured", problem: `${name} is enabled with an empty EncryptionKey` };
  if (settings.EncryptionKey.length < MIN_KEY_LENGTH)
    return {
      kind: "misconfigured",
      problem: `${name}'s EncryptionKey is shorter than ${MIN_KEY_LENGTH} characters: too short to be a key`,
    };
  try {
    const signing = encryptionSigning(settings);
    if (signing === undefined)
      return { kind: "misconfigured", problem: `${name} is enabled but gives no key to sign with` };
    return { kind: "on", signing };
  } catch (error) {
    // The algorithm (or another part of the scheme) is one this build cannot compute: say which, never the key.
    return {
      kind: "misconfigured",
      problem: `${name} cannot be used: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
