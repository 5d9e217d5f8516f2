import type { EncryptionSettings } from "@sds/schemas";
import type { SignatureSchemeOptions } from "@sds/routing";
import { connect } from "../../connection/client.ts";
import type { CommandContext, OptionSpec, OptionSpecs } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { readStdinText } from "../../framework/stdin.ts";

/** The environment variable that can hold an `EncryptionKey` for the `link` commands. */
export const ENCRYPTION_KEY_ENV = "SDS_ENCRYPTION_KEY";

/** The account's two encryption settings, as `--encryption` names them. */
export const encryptionDirections = ["incoming", "outgoing"] as const;
/** One of {@link encryptionDirections}. */
export type EncryptionDirection = (typeof encryptionDirections)[number];

const accountFieldOf = {
  incoming: "IncomingEncryption",
  outgoing: "OutgoingEncryption",
} as const satisfies Record<EncryptionDirection, string>;

/**
 * `--encryption incoming|outgoing`: which of the account's two keys a `link` command uses, with
 * the command's default in its help (sign: incoming; verify and calibrate: outgoing).
 */
export function encryptionOption(defaultDirection: EncryptionDirection) {
  return {
    type: "string",
    valueName: "DIRECTION",
    choices: encryptionDirections,
    description: `which of the account's keys: incoming (IncomingEncryption, the key the marketplace checks entry links with) or outgoing (OutgoingEncryption, the key it signs S2S callbacks with); default ${defaultDirection}; wins over ${ENCRYPTION_KEY_ENV}`,
  } as const satisfies OptionSpec;
}

/** The key source of every `link` command. Never a flag value: flags end up in shell history. */
export const linkKeyOptions = {
  "key-stdin": {
    type: "boolean",
    description: `read the EncryptionKey from standard input (else ${ENCRYPTION_KEY_ENV}, else the account's)`,
  },
  encryption: encryptionOption("incoming"),
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

/** A key, where it came from, and the scheme fields it came with. */
export interface LinkKey {
  readonly key: string;
  /** Where the key came from: `IncomingEncryption` or `OutgoingEncryption` (the account's), `SDS_ENCRYPTION_KEY` or `--key-stdin`. */
  readonly source: string;
  /** `Algorithm` and `QueryParameter` of the account, when the key came from it. */
  readonly fromAccount: SignatureSchemeOptions;
}

/**
 * The key of a `link` command: `--key-stdin`, else the account's key that `--encryption` names,
 * else `SDS_ENCRYPTION_KEY`, else the account's key of `defaultDirection` (fetched). Any
 * non-empty key is taken; one shorter than @sds/routing's `MIN_KEY_LENGTH` gets a warning.
 * Registered as a secret where it enters, so no output of the CLI, `--debug` included, ever
 * shows it (a key too short to redact safely is never printed in the first place).
 */
export async function resolveLinkKey(
  context: CommandContext<typeof linkKeyOptions>,
  defaultDirection: EncryptionDirection,
): Promise<LinkKey> {
  const asked = context.options.encryption as EncryptionDirection | undefined;
  if (context.options["key-stdin"] === true) {
    if (asked !== undefined)
      throw new UsageError("--encryption picks one of the account's keys; --key-stdin gives a key of your own", {
        hint: "Pass one of them.",
      });
    if (context.globals.apiKeyStdin)
      throw new UsageError("--key-stdin and --api-key-stdin both read standard input; put the API key in SDS_API_KEY");
    const key = (await readStdinText(context.io.stdin)).replace(/\r?\n$/, "");
    if (key === "") throw new UsageError("--key-stdin read an empty key");
    return await ownKey(context, key, "--key-stdin");
  }
  const fromEnvironment = context.io.env[ENCRYPTION_KEY_ENV];
  if (asked === undefined && fromEnvironment !== undefined && fromEnvironment !== "")
    return await ownKey(context, fromEnvironment, ENCRYPTION_KEY_ENV);
  const { client } = await connect(context);
  const { data: account } = await client.account.get({ signal: context.signal });
  for (const settings of [account.IncomingEncryption, account.OutgoingEncryption])
    if (settings.EncryptionKey) context.registerSecret(settings.EncryptionKey);
  const accountField = accountFieldOf[asked ?? defaultDirection];
  const key = fromSettings(account[accountField], accountField);
  await warnIfShort(context, key.key, key.source);
  return key;
}

/** The key's source in words, for the notes that name the key used: `the account's IncomingEncryption key`, `the key from SDS_ENCRYPTION_KEY`. */
export function describeKey(key: LinkKey): string {
  return key.source.endsWith("Encryption") ? `the account's ${key.source} key` : `the key from ${key.source}`;
}

async function ownKey(context: CommandContext, key: string, source: string): Promise<LinkKey> {
  context.registerSecret(key);
  await warnIfShort(context, key, source);
  return { key, source, fromAccount: {} };
}

/**
 * Warns about a key shorter than @sds/routing's `MIN_KEY_LENGTH`: it still signs (documented
 * examples use such keys), but a signature under it can be found by trying. The warning names
 * the minimum, never the key.
 */
async function warnIfShort(context: CommandContext, key: string, source: string): Promise<void> {
  const { MIN_KEY_LENGTH } = await import("@sds/routing");
  if (Array.from(key).length < MIN_KEY_LENGTH)
    context.output.warn(
      `${describeKey({ key, source, fromAccount: {} })} is shorter than ${MIN_KEY_LENGTH} characters: fine for a documented example, too weak for a live account`,
    );
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
    source: accountField,
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
