import { defineCommand } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { tokenParamOption, urlSettingsOptions } from "./url-settings-options.ts";

/** `sds account set-redirects`: updates the redirect URLs. */
export const command = defineCommand({
  description:
    "Updates the account's redirect URLs (where respondents are sent when their session ends). Only the URLs you pass change; the others keep their current values. Every URL must be an absolute http or https URL (placeholders such as [%RID%] or {rid} in the query are fine) and is checked before anything is sent. Nothing is sent when nothing would change; --dry-run shows the difference and sends nothing. --sync-return-url sends respondents back to their sds-sync session; the S2S URLs stay as they are (set them with sds account set-s2s --receiver).",
  options: {
    ...urlSettingsOptions,
    "sync-return-url": {
      type: "string",
      valueName: "URL",
      description:
        "point all four URLs at sds-sync's return, where a respondent comes back to their session: URL/v1/return/{complete|terminate|overquota|security}?vq_token=[#vq_tid#], and enable them (the marketplace fills [#vq_tid#] with the entry's token)",
    },
    ...tokenParamOption,
  },
  examples: [
    {
      command: "account set-redirects --complete 'https://panel.example/complete?rid=[%RID%]'",
      description: "Change the complete URL only",
    },
    {
      command: "account set-redirects --from-file redirects.json --dry-run",
      description: "Preview the changes a file would make",
    },
    { command: "account set-redirects --disable", description: "Turn redirects off, URLs unchanged" },
    {
      command: "account set-redirects --sync-return-url https://sync.example.com",
      description:
        "Send every respondent back to their sds-sync session (https://sync.example.com/v1/return/complete?vq_token=[#vq_tid#], …)",
    },
  ],
  async run(context) {
    const returnUrl = context.options["sync-return-url"];
    if (returnUrl === undefined) {
      if (context.options["token-param"] !== undefined) throw new UsageError("--token-param needs --sync-return-url");
      const { runUrlSettingsUpdate } = await import("./url-settings-update.ts");
      await runUrlSettingsUpdate(context, { accountField: "RedirectUrls", label: "redirect URLs" });
      return;
    }
    const { runSyncOutcomePreset } = await import("./sync-outcome-preset.ts");
    await runSyncOutcomePreset(
      context,
      { accountField: "RedirectUrls", label: "redirect URLs" },
      { flag: "sync-return-url", baseUrl: returnUrl, route: "return" },
    );
  },
});
