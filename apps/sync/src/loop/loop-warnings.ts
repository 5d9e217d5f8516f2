import type { AccountSettings } from "./account-settings.ts";

/**
 * What an operator should hear of while the loop still works: outcomes accepted unsigned (a web
 * page or anyone who can reach the receiver could record one), an encryption setting that
 * cannot be used. Listed in `/readyz`'s body, `/v1/sync/status` and the status page.
 */
export function loopWarnings(account: Pick<AccountSettings, "verdicts">, _publicUrl: string | undefined): string[] {
  const verdicts = account.verdicts;
  if (!verdicts) return [];
  const warnings: string[] = [];
  if (verdicts.outgoing.kind === "off")
    warnings.push("outcomes are accepted unsigned: the account's OutgoingEncryption is off");
  for (const verdict of [verdicts.incoming, verdicts.outgoing])
    if (verdict.kind === "misconfigured") warnings.push(`account misconfigured: ${verdict.problem}`);
  return warnings;
}
