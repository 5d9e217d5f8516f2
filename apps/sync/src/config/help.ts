import { allSettings, describeFallback } from "./config.ts";

/** Width `--help` wraps descriptions at. */
const WIDTH = 80;
const INDENT = "      ";

function wrap(text: string, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && indent.length + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines.map((wrapped) => `${indent}${wrapped}`).join("\n");
}

/**
 * The text of `sds-sync --help`: usage, then every setting of the configuration table with its
 * default and description, so it cannot drift from what the loader reads.
 */
export function renderHelp(version: string): string {
  const entries = allSettings().map(({ setting }) => {
    const notes = [
      setting.fallback.kind === "required" ? "required" : `default: ${describeFallback(setting.fallback)}`,
    ];
    if (setting.secret) notes.push("secret, never logged");
    return `  ${setting.variable}  (${notes.join("; ")})\n${wrap(setting.description, INDENT)}`;
  });
  return `sds-sync ${version}: keeps a local, queryable copy of a supplier's live inventory

Usage:
  sds-sync              start the service (configured by the environment, below), in the
                        foreground: SIGTERM or Ctrl-C stops it (run it directly or with exec,
                        not through a package manager, which does not pass the signal on)
  sds-sync check-config validate the environment, connect to the database (nothing created)
                        and read the account upstream (no survey listed or stored)
  sds-sync migrate      apply the database migrations (DATABASE_URL) and exit, for deploy
                        pipelines that migrate before they roll the replicas
  sds-sync replay [--policy earnings|yield]... [--seed N] [--no-explore] [--json]
                        replay ranking policies offline on the store's recorded entries
                        (DATABASE_URL; sds-sync replay --help says more)
  sds-sync --help       show this help
  sds-sync --version    print the version

Configuration (environment variables; empty values count as unset):

${entries.join("\n\n")}

Open routes (no token even when SYNC_API_TOKEN is set): /healthz, /readyz, /openapi.json
(the OpenAPI document of every route, with the tokens each takes) and the status page, /;
/metrics until SYNC_METRICS_TOKEN is set. SYNC_ROUTER_TOKEN opens match, entry links and
sessions only; SYNC_API_TOKEN opens every route.

Exit status: 0 after a clean shutdown (SIGTERM or SIGINT), 78 on invalid configuration,
75 when the database stays unreachable for SYNC_DATABASE_START_TIMEOUT_SECONDS, 64 on an
unknown argument, 1 when the store cannot be opened otherwise, on an unsupported Node.js or
on an unexpected error. check-config: 0 when all is well, 78 for an invalid setting, 75 when
the database or the upstream cannot be reached or the upstream refuses the key. migrate: 0
when migrated, 78, 75 as at start, 1 when a migration fails.
`;
}
