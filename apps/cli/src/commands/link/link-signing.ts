import type { EncryptionSettings } from "@sds/schemas";
import type { SignatureSchemeOptions } from "@sds/routing";
import { connect } from "../../connection/client.ts";
import type { CommandContext, OptionSpecs } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { readStdinText } from "../../framework/stdin.ts";

/** The environment variable that can hold an `EncryptionKey` for the `link` commands. */
export const ENCRYPTION_KEY_ENV = "SDS_ENCRYPTION_KEY";

/** The key source of every `link` command. Never a flag value: flags end up in shell history. */
export const linkKeyOptions = {
  "key-stdin": {
    type: "boolean",
    description: `read the EncryptionKey from standard input (else ${ENCRYPTION_KEY_ENV}, else the account's)`,
  },
} as const satisfies OptionSpecs;

/** The scheme options of `sds link sign` and `sds link verify`. */
export const linkSchemeOptions = {
  algorithm: {
    type: "string",
    valueName: "NAME",
    description:
      "hash: SHA1, SHA256, SHA512 or MD5, leniently spelt (default: the account's Algorithm; SHA1 with a key of your own)",
  },
  param: {
    type: "string",
    valueName: "NAME",
    description: "query parameter of the digest (default: the account's QueryParameter, else hash)",
  },
  encoding: {
    type: "string",
    valueName: "ENCODING",
    choices: ["base64url", "base64", "hex"],
    description: "how the digest is written (default base64url)",
  },
  ...linkKeyOptions,
} as const satisfies OptionSpecs;

/** A key and the scheme fields it came with. */
export interface LinkKey {
  readonly key: string;
  /** `Algorithm` and `QueryParameter` of the account, when the key came from it. */
  readonly fromAccount: SignatureSchemeOptions;
}

/**
 * The key of a `link` command: `--key-stdin`, else `SDS_ENCRYPTION_KEY`, else the account's
 * `IncomingEncryption` or `OutgoingEncryption` (fetched). Registered as a secret where it enters,
 * so no output of the CLI, `--debug` included, ever shows it.
 */
export async function resolveLinkKey(
  context: CommandContext<typeof linkKeyOptions>,
  accountField: "IncomingEncryption" | "OutgoingEncryption",
): Promise<LinkKey> {
  if (context.options["key-stdin"] === true) {
    if (context.globals.apiKeyStdin)
      throw new UsageError("--key-stdin and --api-key-stdin both read standard input; put the API key in SDS_API_KEY");
    const key = (await readStdinText(context.io.stdin)).replace(/\r?\n$/, "");
    if (key === "") throw new UsageError("--key-stdin read an empty key");
    await refuseShortKey(key, "--key-stdin");
    context.registerSecret(key);
    return { key, fromAccount: {} };
  }
  const fromEnvironment = context.io.env[ENCRYPTION_KEY_ENV];
  if (fromEnvironment !== undefined && fromEnvironment !== "") {
    await refuseShortKey(fromEnvironment, ENCRYPTION_KEY_ENV);
    context.registerSecret(fromEnvironment);
    return { key: fromEnvironment, fromAccount: {} };
  }
  const { client } = await connect(context);
  const { data: account } = await client.account.get({ signal: context.signal });
  for (const settings of [account.IncomingEncryption, account.OutgoingEncryption])
    if (settings.EncryptionKey) context.registerSecret(settings.EncryptionKey);
  return fromSettings(account[accountField], accountField);
}

/**
 * Refuses a key shorter than @sds/routing's `MIN_KEY_LENGTH` where it enters, before it is
 * registered as a secret: signing with it would fail anyway, and redacting a few characters
 * would mark them in ordinary words. The message names the minimum, never the key.
 */
async function refuseShortKey(key: string, source: string): Promise<void> {
  const { MIN_KEY_LENGTH } = await import("@sds/routing");
  if (Array.from(key).length < MIN_KEY_LENGTH) {
    throw new UsageError(
      `the key from ${source} is shorter than ${MIN_KEY_LENGTH} characters, too short to be an EncryptionKey`,
      {
        hint: "Use the account's full EncryptionKey (`sds account show --reveal-secrets` shows it).",
      },
    );
  }
}

/**
 * Refuses (exit 2) what cannot be a signed link: no http(s) URL (`''`, `not a url`,
 * `javascript:…`), user information before the host, or a placeholder left unfilled (a
 * signature over `[#vq_tid#]` breaks when it is filled; `sds link entry` fills, then signs).
 */
export async function refuseUnsignableUrl(url: string): Promise<void> {
  const { entryLinkProblem } = await import("@sds/routing");
  const problem = entryLinkProblem(url, { placeholders: {} });
  if (problem === undefined) return;
  const message = problem.message.replace(/^the survey URL/, "the URL");
  throw new UsageError(message, {
    hint:
      problem.code === "unfilled-placeholder"
        ? "Fill the placeholders first; `sds link entry SURVEY_ID --token T` fills and signs a survey's link."
        : "Give a full http:// or https:// URL, quoted for the shell.",
  });
}

function fromSettings(settings: EncryptionSettings, accountField: string): LinkKey {
  if (settings.EncryptionKey === null || settings.EncryptionKey === "") {
    throw new UsageError(`the account's ${accountField} has no EncryptionKey`, {
      hint: `Set ${ENCRYPTION_KEY_ENV} or pipe the key to --key-stdin.`,
    });
  }
  return {
    key: settings.EncryptionKey,
    fromAccount: {
      algorithm: settings.Algorithm,
      ...(settings.QueryParameter ? { parameter: settings.QueryParameter } : {}),
    },
  };
}

/** The scheme: the flags over what the account says. */
export function schemeFromFlags(
  options: CommandContext<typeof linkSchemeOptions>["options"],
  fromAccount: SignatureSchemeOptions,
): SignatureSchemeOptions {
  return {
    ...fromAccount,
    ...(options.algorithm === undefined ? {} : { algorithm: options.algorithm }),
    ...(options.param === undefined ? {} : { parameter: options.param }),
    ...(options.encoding === undefined ? {} : { encoding: options.encoding as "base64url" | "base64" | "hex" }),
  };
}

/** Turns an unknown algorithm name into a usage error (exit 2). */
export async function usageOnBadScheme<T>(work: () => T): Promise<T> {
  const { isRoutingError } = await import("@sds/routing");
  try {
    return work();
  } catch (error) {
    if (isRoutingError(error) || error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Prints a `link` command's result: the plain text (one URL, so `$(sds link sign …)` works) unless
 * a format was asked for with `--output`, then the document in it.
 */
export async function printLinkResult(context: CommandContext, text: string, document: object): Promise<void> {
  const asked = context.globals.output;
  if (asked === undefined || asked === "table") await context.output.write(`${text}\n`);
  else await context.output.document(document, () => text);
}
