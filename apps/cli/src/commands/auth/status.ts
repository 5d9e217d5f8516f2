import { defineCommand } from "../../framework/command.ts";
import { inspectConfig, resolveConfig } from "../../connection/config.ts";
import { readProfiles } from "../../connection/profiles.ts";
import type { Styles } from "../../framework/styles.ts";
import type { TableRenderer } from "../../framework/table.ts";

/** One saved profile as `sds auth status` shows it: never its key. */
interface ProfileStatus {
  readonly name: string;
  readonly active: boolean;
  readonly baseUrl: string;
  readonly supplierId: string | null;
  readonly supplierName: string | null;
  readonly savedAt: string;
}

/** What `sds auth status` reports. */
interface AuthStatus {
  readonly profilesPath: string;
  /** The profile this command line selects, and what selected it. */
  readonly activeProfile: {
    readonly name: string;
    readonly selectedBy: "--profile or SDS_PROFILE" | "default";
    readonly saved: boolean;
  };
  /** Where the base URL and the key of this command line come from (`SDS_API_KEY`, `profile "default"`); `null` when missing. */
  readonly baseUrl: { readonly value: string; readonly source: string } | null;
  readonly apiKey: { readonly source: string } | null;
  readonly profiles: readonly ProfileStatus[];
}

/** `sds auth status`: the saved profiles, the active one, and where the key in use comes from. */
export const command = defineCommand({
  description:
    'Lists the profiles saved by `sds login`, marks the active one (chosen by --profile, else SDS_PROFILE, else "default"), and says where the base URL and the API key of this command line come from: --api-key-stdin, SDS_API_KEY, SDS_BASE_URL or the profile (the environment wins over the profile). Keys are never printed. Sends no request; `sds doctor` checks the key against the service. Exits 2 when the base URL is missing or a named profile is not saved, and 3 when no key is configured, as other commands would.',
  options: {},
  globalOptions: ["base-url", "profile", "api-key-stdin", "output", "json", "color", "debug", "help"],
  examples: [
    { command: "auth status", description: "Which profiles are saved, and which one sds uses" },
    { command: "auth status --profile sandbox", description: "What `--profile sandbox` would use" },
    { command: "auth status -o json", description: "The same as JSON, for scripts" },
  ],
  async run(context) {
    const inspection = await inspectConfig(context);
    const file = await readProfiles(inspection.profilesPath);
    const status: AuthStatus = {
      profilesPath: inspection.profilesPath,
      activeProfile: {
        name: inspection.profileName,
        selectedBy: inspection.profileNamedExplicitly ? "--profile or SDS_PROFILE" : "default",
        saved: inspection.profile !== undefined,
      },
      baseUrl: inspection.baseUrl ?? null,
      apiKey: inspection.apiKey === undefined ? null : { source: inspection.apiKey.source },
      profiles: [...file.profiles].map(([name, profile]) => ({
        name,
        active: name === inspection.profileName,
        baseUrl: profile.baseUrl,
        supplierId: profile.supplierId ?? null,
        supplierName: profile.supplierName ?? null,
        savedAt: profile.savedAt,
      })),
    };
    await context.output.document(status, (styles, tables) => renderStatus(status, styles, tables.renderTable));
    // Incomplete settings fail as every command would with them: the same message and exit code.
    await resolveConfig(context);
  },
});

function renderStatus(status: AuthStatus, styles: Styles, renderTable: TableRenderer["renderTable"]): string {
  const lines: string[] = [];
  if (status.profiles.length === 0) lines.push(`No profiles saved in ${status.profilesPath}; \`sds login\` saves one.`);
  else {
    lines.push(`Profiles in ${status.profilesPath}:`);
    const rows = status.profiles.map((profile) => [
      profile.active ? styles.green("*") : " ",
      profile.name,
      profile.baseUrl,
      profile.supplierId === null
        ? "(key not checked)"
        : `${profile.supplierId}${profile.supplierName === null ? "" : ` (${profile.supplierName})`}`,
      profile.savedAt,
    ]);
    lines.push(
      renderTable(
        [{ header: "" }, { header: "Profile" }, { header: "Base URL" }, { header: "Supplier" }, { header: "Saved" }],
        rows,
        { styles },
      ).trimEnd(),
    );
  }
  const active = status.activeProfile;
  const selected = active.selectedBy === "default" ? "the default" : "named by --profile or SDS_PROFILE";
  lines.push(`Active profile: "${active.name}" (${selected}${active.saved ? "" : ", not saved"})`);
  lines.push(
    `Base URL: ${status.baseUrl === null ? "not configured" : `${status.baseUrl.value} (from ${status.baseUrl.source})`}`,
  );
  lines.push(
    `API key: ${status.apiKey === null ? "not configured" : `set (from ${status.apiKey.source}; never shown)`}`,
  );
  return lines.join("\n") + "\n";
}
