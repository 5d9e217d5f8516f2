import type { SyncOutcomeRoute } from "@sds/sync-client";
import type { CommandContext } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import type { tokenParamOption, urlSettingsOptions, UrlSettingsTarget } from "./url-settings-options.ts";

/** The flags that name one URL or `Enabled`: a preset that sets all four and enables them cannot take them too. */
const individualFlags = ["complete", "terminate", "over-quota", "security-terminate", "disable"] as const;

/**
 * Points all four URLs of `target` at an sds-sync (`set-s2s --receiver`, `set-redirects
 * --sync-return-url`) with `@sds/sync-client`'s one builder of them, enables them, and updates the
 * account like any other change (diff, `--dry-run`, nothing sent when nothing changes).
 */
export async function runSyncOutcomePreset(
  context: CommandContext<typeof urlSettingsOptions & typeof tokenParamOption>,
  target: Omit<UrlSettingsTarget, "preset">,
  preset: { readonly flag: string; readonly baseUrl: string; readonly route: SyncOutcomeRoute },
): Promise<void> {
  const clash = individualFlags.find((flag) => context.options[flag] !== undefined);
  if (clash !== undefined)
    throw new UsageError(`--${preset.flag} sets all four URLs and enables them; it cannot be combined with --${clash}`);
  const tokenParameter = context.options["token-param"];
  const [{ isSyncConfigurationError, syncOutcomeUrls }, { runUrlSettingsUpdate }] = await Promise.all([
    import("@sds/sync-client"),
    import("./url-settings-update.ts"),
  ]);
  let urls;
  try {
    urls = syncOutcomeUrls(preset.baseUrl, preset.route, tokenParameter === undefined ? {} : { tokenParameter });
  } catch (error) {
    if (!isSyncConfigurationError(error)) throw error;
    const flag = error.option === "tokenParameter" ? "token-param" : preset.flag;
    throw new UsageError(`--${flag}: ${error.message}`, {
      hint: "Give sds-sync's public base URL, such as https://sync.example.com (the routes are added to it).",
      cause: error,
    });
  }
  await runUrlSettingsUpdate(context, { ...target, preset: { ...urls, Enabled: true } });
}
