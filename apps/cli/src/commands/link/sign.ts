import { defineCommand } from "../../framework/command.ts";
import {
  describeKey,
  encryptionOption,
  linkSchemeOptions,
  refuseUnsignableUrl,
  resolveLinkKey,
  printLinkResult,
  schemeFromFlags,
  usageOnBadScheme,
} from "./link-signing.ts";

/** `sds link sign URL`: prints the URL signed. */
export const command = defineCommand({
  description:
    "Signs a URL the way the marketplace checks entry links: HMAC with the algorithm over the URL up to and including the ? or & before the digest parameter, appended as hash=DIGEST (base64url) by default. The key comes from --key-stdin, else the account's key that --encryption names, else SDS_ENCRYPTION_KEY, else the account's IncomingEncryption (the default: the key the marketplace checks entry links with), fetched with its Algorithm and QueryParameter; stderr says which key signed, and the key itself is never printed. Any non-empty key signs; one shorter than 16 characters gets a warning. Only a full http(s) URL with no user@ and no unfilled placeholder is signed (exit 2 otherwise).",
  arguments: [{ name: "URL", description: "the URL to sign" }],
  options: { ...linkSchemeOptions, encryption: encryptionOption("incoming") },
  examples: [
    {
      command: "link sign 'https://survey.example/s/1?tid=abc'",
      description: "Sign with the account's IncomingEncryption",
    },
    {
      command: "link sign 'https://panel.example/v1/outcomes/complete?vq_token=t1' --encryption outgoing",
      description: "Sign as the marketplace signs S2S callbacks, to test your receiver",
    },
    {
      command: "link sign 'https://survey.example/s/1?tid=abc' --algorithm SHA256 --encoding hex",
      description: "With SDS_ENCRYPTION_KEY set: SHA256, hex digest",
    },
  ],
  async run(context) {
    const url = context.positionals[0] as string;
    await refuseUnsignableUrl(url);
    const linkKey = await resolveLinkKey(context, "incoming");
    const { signUrl } = await import("@sds/routing");
    const signed = await usageOnBadScheme(() =>
      signUrl(url, linkKey.key, schemeFromFlags(context.options, linkKey.fromAccount)),
    );
    context.output.note(`Signed with ${describeKey(linkKey)}.`);
    await printLinkResult(context, signed, { url: signed, key: linkKey.source });
  },
});
