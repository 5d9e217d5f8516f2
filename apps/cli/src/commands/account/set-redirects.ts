import { defineCommand } from "../../framework/command.ts";
import { urlSettingsOptions } from "./url-settings-options.ts";

/** `sds account set-redirects`: updates the redirect URLs. */
export const command = defineCommand({
  description:
    "Updates the account's redirect URLs (where respondents are sent when their session ends). Only the URLs you pass change; the others keep their current values. Every URL must be an absolute http or https URL (placeholders such as [%RID%] or {rid} in the query are fine) and is checked before anything is sent. Nothing is sent when nothing would change; --dry-run shows the difference and sends nothing.",
  options: urlSettingsOptions,
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
  ],
  async run(context) {
    const { runUrlSettingsUpdate } = await import("./url-settings-update.ts");
    await runUrlSettingsUpdate(context, { accountField: "RedirectUrls", label: "redirect URLs" });
  },
});
