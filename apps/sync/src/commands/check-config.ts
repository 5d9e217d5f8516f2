import { createClient } from "@sds/client";
import { isConfigError } from "../common/errors.ts";
import { describeDatabase, loadConfig, type SyncConfig } from "../config/config.ts";
import { encryptionVerdict } from "../loop/encryption-verdict.ts";
import { syncLedger } from "../inventory-store/migrations.ts";
import { describeUpstreamFailure } from "../upstream/upstream-failure.ts";
import { checkDatabase } from "./database-check.ts";
import { EXIT_CONFIG, EXIT_OK, EXIT_TEMPORARY_FAILURE, type CommandOutput } from "../common/exit-codes.ts";

/** How long the check waits for the account. */
const ACCOUNT_TIMEOUT_MS = 15_000;

/**
 * `sds-sync check-config`: validates the environment like a start would, connects to the database
 * (read only: nothing is created or migrated) and reads the account upstream with the key
 * (Get Supplier Details only: no survey is listed or stored). One line per check on stdout,
 * problems on stderr; exit 0 when all is well, 78 for an invalid setting, 75 when the database or
 * the upstream cannot be reached or the upstream refuses the key. Secrets are never printed.
 */
export async function runCheckConfig(env: NodeJS.ProcessEnv, output: CommandOutput): Promise<number> {
  let config: SyncConfig;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!isConfigError(error)) throw error;
    output.err.write(`sds-sync check-config: ${error.message}\n`);
    return EXIT_CONFIG;
  }
  output.out.write(`configuration: valid (sds-sync --help lists every setting)\n`);

  let failed = false;
  const database = describeDatabase(config.database);
  try {
    const { summary } = await checkDatabase(config.database, syncLedger);
    output.out.write(`database: ${database}: ${summary}\n`);
  } catch (error) {
    failed = true;
    output.err.write(`sds-sync check-config: database ${database} cannot be reached: ${(error as Error).message}\n`);
  }

  const sds = createClient({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    paths: config.operationPaths,
    validation: "loose",
    retry: 0,
  });
  try {
    const { data: account } = await sds.account.get({ signal: AbortSignal.timeout(ACCOUNT_TIMEOUT_MS) });
    const outgoing = encryptionVerdict(account.OutgoingEncryption, "OutgoingEncryption");
    const incoming = encryptionVerdict(account.IncomingEncryption, "IncomingEncryption");
    output.out.write(
      `upstream: ${config.baseUrl}: the key reads account ${account.Id} (${JSON.stringify(account.Name)}); ` +
        `entry links ${incoming.kind === "off" ? "unsigned" : incoming.kind === "misconfigured" ? `cannot be signed (${incoming.problem})` : "signed"}, ` +
        `outcomes ${outgoing.kind === "off" ? "accepted unsigned" : outgoing.kind === "misconfigured" ? `cannot be verified (${outgoing.problem})` : "verified"}\n`,
    );
  } catch (error) {
    failed = true;
    output.err.write(`sds-sync check-config: upstream ${config.baseUrl}: ${describeUpstreamFailure(error)}\n`);
  }
  return failed ? EXIT_TEMPORARY_FAILURE : EXIT_OK;
}
