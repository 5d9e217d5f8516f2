import { renderAccount } from "./account-view.ts";
import { connect } from "../../connection/client.ts";
import { defineCommand } from "../../framework/command.ts";

/** `sds account show`: the supplier account, encryption keys masked. */
export const command = defineCommand({
  description:
    "Shows the supplier account: id, name, whether it is active, the incoming and outgoing encryption settings, the redirect URLs and the S2S URLs. Both EncryptionKeys are masked (********) unless you pass --reveal-secrets; an unset key shows as null.",
  options: {
    "reveal-secrets": {
      type: "boolean",
      description: "show the EncryptionKeys in clear (mind your terminal's scrollback)",
    },
  },
  examples: [
    { command: "account show", description: "The account, keys masked" },
    { command: "account show -o json | jq .RedirectUrls", description: "Just the redirect URLs, as JSON" },
    { command: "account show --reveal-secrets", description: "Including the encryption keys" },
  ],
  async run(context) {
    const { client } = await connect(context);
    const { data: account } = await client.account.get({ signal: context.signal });
    const reveal = context.options["reveal-secrets"] === true;
    if (!reveal) {
      // Masked means masked everywhere, error reports included.
      for (const key of [account.IncomingEncryption.EncryptionKey, account.OutgoingEncryption.EncryptionKey])
        if (key !== null) context.registerSecret(key);
    }
    const { maskAccountSecrets } = await import("@sds/schemas");
    const shown = reveal ? account : maskAccountSecrets(account);
    await context.output.document(shown, (styles, tables) => renderAccount(shown, styles, tables));
  },
});
