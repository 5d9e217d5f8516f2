import { defineCommand } from "../../framework/command.ts";
import { CliError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";
import { encryptionOption, linkKeyOptions, resolveLinkKey, usageOnBadScheme } from "./link-signing.ts";

/** `sds link calibrate URL`: finds the scheme a known-good signed URL was signed with. */
export const command = defineCommand({
  description:
    "Finds how a known-good signed URL was signed, since the service does not document its scheme: tries every supported algorithm (SHA1, SHA256, SHA512, MD5), encoding (base64url, base64, hex), separator rule and method (HMAC, plain hash of url+key), taking the last query parameter as the digest, and lists the combinations that match. Exits 1 when none does. The key comes from --key-stdin, else the account's key that --encryption names, else SDS_ENCRYPTION_KEY, else the account's OutgoingEncryption; it is never printed.",
  arguments: [{ name: "URL", description: "a URL signed by the marketplace (an S2S callback you received)" }],
  options: { ...linkKeyOptions, encryption: encryptionOption("outgoing") },
  examples: [
    {
      command: "link calibrate 'https://panel.example/s2s/complete?rid=1&hash=…'",
      description: "Which scheme signed this callback?",
    },
  ],
  async run(context) {
    const url = context.positionals[0] as string;
    const { key } = await resolveLinkKey(context, "outgoing");
    const { calibrate } = await import("@sds/routing");
    const result = await usageOnBadScheme(() => calibrate(url, key));
    if (result.matches.length === 0)
      throw new CliError(
        `no supported scheme matches (tried ${result.tried}, digest parameter ${JSON.stringify(result.parameter ?? null)})`,
        ExitCode.Failure,
      );
    await context.output.document(result, () =>
      result.matches
        .map(
          (scheme) =>
            `${scheme.method === "hmac" ? "HMAC" : "hash(url + key)"} ${scheme.algorithm.toUpperCase()}, ${scheme.encoding}, parameter ${scheme.parameter}, ${scheme.includeSeparator ? "separator signed" : "separator not signed"}`,
        )
        .join("\n"),
    );
  },
});
