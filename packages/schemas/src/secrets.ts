import type { SupplierAccount } from "./account.ts";

/** What a masked secret looks like: the value's presence shows, its characters do not. */
export const MASKED_SECRET = "********";

/**
 * Masks a secret for display: `null` stays `null` (unset), anything else becomes
 * {@link MASKED_SECRET}. No character of the secret survives, not even the last four.
 */
export function maskSecret(value: string | null): string | null {
  return value === null ? null : MASKED_SECRET;
}

/**
 * A copy of the account with both `EncryptionKey`s masked, safe to print or log.
 *
 * @example
 * ```ts
 * console.log(maskAccountSecrets(account).IncomingEncryption.EncryptionKey); // "********"
 * ```
 */
export function maskAccountSecrets<Account extends SupplierAccount>(account: Account): Account {
  return {
    ...account,
    IncomingEncryption: {
      ...account.IncomingEncryption,
      EncryptionKey: maskSecret(account.IncomingEncryption.EncryptionKey),
    },
    OutgoingEncryption: {
      ...account.OutgoingEncryption,
      EncryptionKey: maskSecret(account.OutgoingEncryption.EncryptionKey),
    },
  };
}
