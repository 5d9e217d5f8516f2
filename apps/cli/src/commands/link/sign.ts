import { defineCommand } from "../../framework/command.ts";
import {
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
    "Signs a URL the way the marketplace checks entry links: HMAC with the algorithm over the URL up to and including the ? or & before the digest parameter, appended as hash=DIGEST (base64url) by default. The key comes from --key-stdin, else SDS_ENCRYPTION_KEY, else the account's IncomingEncryption (fetched, with its Algorithm and QueryParameter); it is never printed. Only a full http(s) URL with no user@ and no unfilled placeholder is signed, and only with a key of at least 16 characters (exit 2 otherwise).",
  arguments: [{ name: "URL", description: "the URL to sign" }],
  options: linkSchemeOptions,
  examples: [
    {
      command: "link sign 'https://survey.example/s/1?tid=abc'",
      description: "Sign with the account's IncomingEncryption",
    },
    {
      command: "link sign 'https://survey.example/s/1?tid=abc' --algorithm SHA256 --encoding hex",
      description: "With SDS_ENCRYPTION_KEY set: SHA256, hex digest",
    },
  ],
  async run(context) {
    const url = context.positionals[0] as string;
    await refuseUnsignableUrl(url);
    const { key, fromAccount } = await resolveLinkKey(context, "IncomingEncryption");
    const { signUrl } = await import("@sds/routing");
    const signed = await usageOnBadScheme(() => signUrl(url, key, schemeFromFlags(context.options, fromAccount)));
    await printLinkResult(context, signed, { url: signed });
  },
});
