import { defineCommand } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { tokenParamOption, urlSettingsOptions } from "./url-settings-options.ts";

/** `sds account set-s2s`: updates the server-to-server redirect URLs. */
export const command = defineCommand({
  description:
    "Updates the account's server-to-server (S2S) redirect URLs (the notifications of respondent outcomes sent to your servers). Only the URLs you pass change; the others keep their current values. Every URL must be an absolute http or https URL and is checked before anything is sent. Nothing is sent when nothing would change; --dry-run shows the difference and sends nothing.",
  options: {
    ...urlSettingsOptions,
    receiver: {
      type: "string",
      valueName: "URL",
      description:
        "point all four URLs at sds-sync's S2S receiver: URL/v1/outcomes/{complete|terminate|overquota|security}?vq_token=[#vq_tid#], and enable them (the marketplace fills [#vq_tid#] with the entry's token)",
    },
    ...tokenParamOption,
  },
  examples: [
    {
      command: "account set-s2s --terminate 'https://api.panel.example/s2s/terminate?rid={rid}'",
      description: "Change the S2S terminate URL only",
    },
    { command: "account set-s2s --enable --dry-run", description: "Preview turning S2S notifications on" },
    {
      command: "account set-s2s --receiver https://outcomes.panel.example",
      description: "Send every outcome to sds-sync's receiver",
    },
  ],
  async run(context) {
    const receiver = context.options.receiver;
    if (receiver === undefined) {
      if (context.options["token-param"] !== undefined) throw new UsageError("--token-param needs --receiver");
      const { runUrlSettingsUpdate } = await import("./url-settings-update.ts");
      await runUrlSettingsUpdate(context, { accountField: "S2SUrls", label: "S2S URLs" });
      return;
    }
    const { runSyncOutcomePreset } = await import("./sync-outcome-preset.ts");
    await runSyncOutcomePreset(
      context,
      { accountField: "S2SUrls", label: "S2S URLs" },
      { flag: "receiver", baseUrl: receiver, route: "receiver" },
    );
  },
});
