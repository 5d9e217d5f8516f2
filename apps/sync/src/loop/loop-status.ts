import { encryptionSigning } from "@sds/routing";
import type { LoopContext } from "./loop-context.ts";

/**
 * The respondent loop in `/v1/sync/status`: the matcher's size and feed position, whether the
 * account's settings were read (and whether links are signed and outcomes verified), outcomes by
 * kind, and per survey the entries issued through sds-sync, their outcomes (each entry counted by
 * its latest), conversion (completes / entries) and earnings per entry (the `Cpi` of completed
 * entries / entries: completes × Cpi / entries).
 */
export async function loopStatus(loop: LoopContext): Promise<Record<string, unknown>> {
  const [rows, outcomes] = await Promise.all([loop.outcomes.conversion(), loop.outcomes.outcomeCounts()]);
  const settings = loop.account.current;
  return {
    matcher: { surveys: loop.liveMatcher.matcher.size, sequence: loop.liveMatcher.sequence },
    account: {
      fetchedAt: loop.account.fetchedAt?.toISOString() ?? null,
      entryLinksSigned: settings ? encryptionSigning(settings.IncomingEncryption) !== undefined : null,
      outcomesVerified: settings ? encryptionSigning(settings.OutgoingEncryption) !== undefined : null,
    },
    outcomes,
    conversion: rows.map((row) => ({
      surveyId: row.surveyId,
      entries: row.entries,
      completes: row.completes,
      terminates: row.terminates,
      overquotas: row.overquotas,
      securityTerminates: row.securityTerminates,
      conversion: row.entries === 0 ? 0 : row.completes / row.entries,
      earningsPerEntry: row.entries === 0 ? 0 : row.earnings / row.entries,
    })),
  };
}
