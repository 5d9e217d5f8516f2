import { defineCommand } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { urlSettingsOptions } from "./url-settings-options.ts";

/** The outcome routes of sds-sync's S2S receiver, by account field. */
const receiverRoutes = {
  CompleteUrl: "complete",
  TerminateUrl: "terminate",
  OverQuotaUrl: "overquota",
  SecurityTerminateUrl: "security",
} as const;

/**
 * The query every receiver URL carries: the marketplace fills `[#vq_tid#]` with the entry's
 * transaction token, which sds-sync reads from `vq_token` (its default token parameter).
 */
export const RECEIVER_TOKEN_QUERY = "vq_token=[#vq_tid#]";

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
        "point all four URLs at sds-sync's S2S receiver: URL/v1/outcomes/{complete|terminate|overquota|security}?vq_token=[#vq_tid#], and enable them",
    },
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
    const { runUrlSettingsUpdate } = await import("./url-settings-update.ts");
    const receiver = context.options.receiver;
    if (receiver === undefined) {
      await runUrlSettingsUpdate(context, { accountField: "S2SUrls", label: "S2S URLs" });
      return;
    }
    const individual = ["complete", "terminate", "over-quota", "security-terminate", "disable"] as const;
    const clash = individual.find((flag) => context.options[flag] !== undefined);
    if (clash !== undefined)
      throw new UsageError(`--receiver sets all four URLs and enables them; it cannot be combined with --${clash}`);
    const base = receiver.replace(/\/+$/, "");
    const preset = Object.fromEntries(
      Object.entries(receiverRoutes).map(([field, route]) => [
        field,
        `${base}/v1/outcomes/${route}?${RECEIVER_TOKEN_QUERY}`,
      ]),
    );
    await runUrlSettingsUpdate(context, {
      accountField: "S2SUrls",
      label: "S2S URLs",
      preset: { ...preset, Enabled: true },
    });
  },
});
