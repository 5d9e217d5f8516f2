import { defineCommand } from "../../framework/command.ts";
import { CliError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";
import {
  describeKey,
  encryptionOption,
  linkSchemeOptions,
  resolveLinkKey,
  printLinkResult,
  schemeFromFlags,
  usageOnBadScheme,
} from "./link-signing.ts";

/** `sds link verify URL`: exits 0 when the signature is valid, 1 (reason on stderr) when not. */
export const command = defineCommand({
  description:
    "Checks the signature of a signed URL (such as an S2S callback you received): exits 0 when it is valid and 1 when it is not, with the reason on stderr: missing, malformed or mismatch; fragment (a #… that no signed request carries), userinfo (user@ before the host) or authority (not http(s)://host[:port]). The URL is checked as given, never re-encoded. The key comes from --key-stdin, else the account's key that --encryption names, else SDS_ENCRYPTION_KEY, else the account's OutgoingEncryption (the default: the key the marketplace signs S2S callbacks with), fetched; the result names the key used, never the key itself. To check a link made with `sds link sign` (which signs with the IncomingEncryption), pass --encryption incoming.",
  arguments: [{ name: "URL", description: "the signed URL" }],
  options: { ...linkSchemeOptions, encryption: encryptionOption("outgoing") },
  examples: [
    {
      command: "link verify 'https://panel.example/v1/outcomes/complete?vq_token=t1&hash=…'",
      description: "Check an S2S callback against the account's OutgoingEncryption",
    },
    {
      command: "link verify \"$(sds link sign 'https://survey.example/s/1?tid=abc')\" --encryption incoming",
      description: "Check a link you just signed",
    },
  ],
  async run(context) {
    const url = context.positionals[0] as string;
    const linkKey = await resolveLinkKey(context, "outgoing");
    const { verifySignedUrl } = await import("@sds/routing");
    const result = await usageOnBadScheme(() =>
      verifySignedUrl(url, linkKey.key, schemeFromFlags(context.options, linkKey.fromAccount)),
    );
    if (!result.valid) {
      const hint = otherKeyHint(linkKey.source);
      throw new CliError(
        `invalid signature (${result.reason}) under ${describeKey(linkKey)}: ${result.message}`,
        ExitCode.Failure,
        hint === undefined ? {} : { hint },
      );
    }
    context.output.note(`Checked with ${describeKey(linkKey)}.`);
    await printLinkResult(context, "valid", { valid: true, key: linkKey.source });
  },
});

/** After a mismatch under one of the account's keys: the flag that tries the other one. */
function otherKeyHint(source: string): string | undefined {
  if (source === "OutgoingEncryption")
    return "A link signed with `sds link sign` (the IncomingEncryption key) needs --encryption incoming.";
  if (source === "IncomingEncryption")
    return "An S2S callback is signed with the OutgoingEncryption key: --encryption outgoing.";
  return undefined;
}
