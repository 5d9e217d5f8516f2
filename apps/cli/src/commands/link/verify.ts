import { defineCommand } from "../../framework/command.ts";
import { CliError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";
import {
  linkSchemeOptions,
  resolveLinkKey,
  printLinkResult,
  schemeFromFlags,
  usageOnBadScheme,
} from "./link-signing.ts";

/** `sds link verify URL`: exits 0 when the signature is valid, 1 (reason on stderr) when not. */
export const command = defineCommand({
  description:
    "Checks the signature of a signed URL (such as an S2S callback you received): exits 0 when it is valid and 1 when it is not, with the reason on stderr: missing, malformed or mismatch; fragment (a #… that no signed request carries), userinfo (user@ before the host) or authority (not http(s)://host[:port]). The URL is checked as given, never re-encoded. The key comes from --key-stdin, else SDS_ENCRYPTION_KEY, else the account's OutgoingEncryption (fetched); it is never printed.",
  arguments: [{ name: "URL", description: "the signed URL" }],
  options: linkSchemeOptions,
  examples: [
    {
      command: "link verify 'https://panel.example/v1/outcomes/complete?vq_token=t1&hash=…'",
      description: "Check an S2S callback against the account's OutgoingEncryption",
    },
  ],
  async run(context) {
    const url = context.positionals[0] as string;
    const { key, fromAccount } = await resolveLinkKey(context, "OutgoingEncryption");
    const { verifySignedUrl } = await import("@sds/routing");
    const result = await usageOnBadScheme(() =>
      verifySignedUrl(url, key, schemeFromFlags(context.options, fromAccount)),
    );
    if (!result.valid) throw new CliError(`invalid signature (${result.reason}): ${result.message}`, ExitCode.Failure);
    await printLinkResult(context, "valid", { valid: true });
  },
});
