import { allSettings, describeFallback } from "./config.ts";

/** Width the template wraps its comments at. */
const WIDTH = 98;

function comment(text: string): string[] {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.split(/\s+/)) {
    if (line !== "#" && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = "#";
    }
    line = `${line} ${word}`;
  }
  if (line !== "#") lines.push(line);
  return lines;
}

/**
 * The text of `deploy/sds-sync.env.example`: every setting of the configuration table, in its
 * order, with its description and default. Required settings are lines to fill in; the others
 * are commented out at their default, so the file works as it is once the required ones are set.
 * Generated (`pnpm --filter @sds/sync env-example`) and checked against the table by a test.
 */
export function renderEnvExample(): string {
  const header = [
    "# The environment of sds-sync: every setting, with its default. Generated from the configuration",
    "# table (apps/sync/src/config/config.ts) by `pnpm --filter @sds/sync env-example`; a test checks",
    "# it against the table. Copy it to /etc/sds-sync/env (readable by the service's group only: it",
    "# holds secrets), fill in the required settings and uncomment what you change. Empty values",
    "# count as unset. `sds-sync check-config` validates the result, reaching the database and the",
    "# account without changing anything.",
  ];
  const entries = allSettings().map(({ setting }) => {
    const { fallback } = setting;
    const notes =
      fallback.kind === "required"
        ? "Required."
        : fallback.kind === "unset"
          ? "Default: unset."
          : `Default: ${describeFallback(fallback)}.`;
    const secret = setting.secret ? " Secret." : "";
    const value =
      fallback.kind === "required"
        ? `${setting.variable}=`
        : fallback.kind === "default"
          ? `#${setting.variable}=${fallback.raw}`
          : `#${setting.variable}=`;
    return [...comment(`${setting.description} ${notes}${secret}`), value].join("\n");
  });
  return `${[header.join("\n"), ...entries].join("\n\n")}\n`;
}
