import { defineCommand } from "../internal/command.ts";
import { urlSettingsOptions } from "../internal/url-settings-options.ts";

/** `sds account set-s2s`: updates the server-to-server redirect URLs. */
export const command = defineCommand({
  description:
    "Updates the account's server-to-server (S2S) redirect URLs (the notifications of respondent outcomes sent to your servers). Only the URLs you pass change; the others keep their current values. Every URL must be an absolute http or https URL and is checked before anything is sent. Nothing is sent when nothing would change; --dry-run shows the difference and sends nothing.",
  options: urlSettingsOptions,
  examples: [
    { command: "account set-s2s --terminate 'https://api.panel.example/s2s/terminate?rid={rid}'", description: "Change the S2S terminate URL only" },
    { command: "account set-s2s --enable --dry-run", description: "Preview turning S2S notifications on" },
  ],
  async run(context) {
    const { runUrlSettingsUpdate } = await import("../internal/url-settings-update.ts");
    await runUrlSettingsUpdate(context, { accountField: "S2SUrls", label: "S2S URLs" });
  },
});
