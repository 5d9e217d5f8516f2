import { readFile } from "node:fs/promises";
import { defineCommand, type CommandContext, type OptionSpecs } from "../../framework/command.ts";
import { CliError, UsageError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";
import { readInputText } from "../../framework/input-file.ts";
import { readStdinText } from "../../framework/stdin.ts";
import { parseWebhookHeaders, webhookHeaderNames, type WebhookHeaderName } from "./webhook-headers.ts";

/** The environment variable with the webhook secret: the name sds-sync itself reads. */
const SECRET_ENV = "SYNC_WEBHOOK_SECRET";

const verifyOptions = {
  id: { type: "string", valueName: "ID", description: "the webhook-id header" },
  timestamp: { type: "string", valueName: "SECONDS", description: "the webhook-timestamp header (Unix seconds)" },
  signature: {
    type: "string",
    valueName: "SIGNATURES",
    description: "the webhook-signature header (v1,BASE64 …, space-separated)",
  },
  headers: {
    type: "string",
    valueName: "FILE",
    isPath: true,
    description: "read the three headers from a header block (Name: value lines); the flags above win",
  },
  "secret-stdin": {
    type: "boolean",
    description: `read the secret from standard input (else ${SECRET_ENV})`,
  },
  "ignore-age": {
    type: "boolean",
    description: "check the signature only, not that the timestamp is within 5 minutes of now",
  },
} as const satisfies OptionSpecs;

/** `sds webhooks verify [BODY_FILE]`: checks the signature of a received Standard Webhooks request. */
export const command = defineCommand({
  description: `Checks the signature of a webhook request as sds-sync sends them (the Standard Webhooks scheme, with the standardwebhooks package): HMAC-SHA256 with the secret over "webhook-id.webhook-timestamp.body". Exits 0 when one of the signatures in webhook-signature matches and the timestamp is within 5 minutes of now (--ignore-age skips the time check, for a request saved earlier), 1 when not (the reason on stderr), 2 for a missing header or secret. The body is the request's exact bytes, from BODY_FILE or standard input; the headers come from --id, --timestamp and --signature, or from --headers FILE (the request's header block, as a receiver logs it or curl -D saves it). The secret (whsec_…) comes from ${SECRET_ENV} or --secret-stdin, never from a flag value, and is never printed.`,
  arguments: [
    { name: "BODY_FILE", description: "the request body, byte for byte (default -: standard input)", optional: true },
  ],
  options: verifyOptions,
  examples: [
    {
      command: "webhooks verify body.json --headers headers.txt",
      description: `A request your receiver saved (${SECRET_ENV} set)`,
    },
    {
      command: `webhooks verify body.json --id "$ID" --timestamp "$TS" --signature "$SIG" --ignore-age`,
      description: "From the three header values, sent a while ago",
    },
  ],
  async run(context) {
    const { options } = context;
    const bodyPath = context.positionals[0] ?? "-";
    if (bodyPath === "-" && options["secret-stdin"] === true)
      throw new UsageError("the body (-) and --secret-stdin both read standard input", {
        hint: `Give the body as a file, or set ${SECRET_ENV}.`,
      });
    const secret = await readSecret(context);
    const headers = await readHeaders(options);
    const body = await readInputText(context, bodyPath);
    const { Webhook, WebhookVerificationError } = await import("standardwebhooks");
    let webhook: InstanceType<typeof Webhook>;
    try {
      webhook = new Webhook(secret);
    } catch {
      // The package's message may quote the value; ours names only where it came from.
      throw new UsageError(`the webhook secret is not a base64 key (whsec_…)`, {
        hint: `Use the secret sds-sync signs with (its ${SECRET_ENV}).`,
      });
    }
    const sentAt = new Date(Number(headers["webhook-timestamp"]) * 1000);
    const ageSeconds = Math.round((Date.now() - sentAt.getTime()) / 1000);
    try {
      if (options["ignore-age"] === true) verifyIgnoringAge(webhook, headers, body);
      else webhook.verify(body, { ...headers }, { jsonParse: false });
    } catch (error) {
      if (!(error instanceof WebhookVerificationError) && !(error instanceof WebhookMismatch)) throw error;
      throw new CliError(`invalid webhook signature: ${error.message}`, ExitCode.Failure, {
        hint: hintFor(error.message),
      });
    }
    const when = Number.isNaN(sentAt.getTime()) ? headers["webhook-timestamp"] : sentAt.toISOString();
    context.output.note(`Signature valid: webhook-id ${headers["webhook-id"]}, sent ${when} (${ageSeconds} s ago).`);
    const document = { valid: true, id: headers["webhook-id"], timestamp: when, type: eventType(body) };
    const asked = context.globals.output;
    if (asked === undefined || asked === "table") await context.output.write("valid\n");
    else await context.output.document(document, () => "valid");
  },
});

type WebhookHeaders = Record<WebhookHeaderName, string>;

async function readSecret(context: CommandContext<typeof verifyOptions>): Promise<string> {
  let secret: string;
  if (context.options["secret-stdin"] === true) {
    if (context.globals.apiKeyStdin)
      throw new UsageError("--secret-stdin and --api-key-stdin both read standard input");
    secret = (await readStdinText(context.io.stdin)).trim();
    if (secret === "") throw new UsageError("--secret-stdin read an empty secret");
  } else {
    secret = context.io.env[SECRET_ENV]?.trim() ?? "";
    if (secret === "")
      throw new UsageError("no webhook secret", { hint: `Set ${SECRET_ENV} or pipe the secret to --secret-stdin.` });
  }
  context.registerSecret(secret);
  // Without its prefix too: a message quoting the base64 part alone must not show it either.
  if (secret.startsWith("whsec_")) context.registerSecret(secret.slice("whsec_".length));
  return secret;
}

async function readHeaders(options: {
  readonly id?: string | undefined;
  readonly timestamp?: string | undefined;
  readonly signature?: string | undefined;
  readonly headers?: string | undefined;
}): Promise<WebhookHeaders> {
  let fromFile = new Map<WebhookHeaderName, string>();
  if (options.headers !== undefined) {
    try {
      fromFile = parseWebhookHeaders(await readFile(options.headers, "utf8"));
    } catch (error) {
      throw new CliError(`cannot read ${options.headers}: ${(error as Error).message}`, ExitCode.Usage, {
        cause: error,
      });
    }
  }
  const flags: Record<WebhookHeaderName, string | undefined> = {
    "webhook-id": options.id,
    "webhook-timestamp": options.timestamp,
    "webhook-signature": options.signature,
  };
  const flagNames: Record<WebhookHeaderName, string> = {
    "webhook-id": "--id",
    "webhook-timestamp": "--timestamp",
    "webhook-signature": "--signature",
  };
  const headers: Partial<WebhookHeaders> = {};
  for (const name of webhookHeaderNames) {
    const value = flags[name] ?? fromFile.get(name);
    if (value === undefined || value === "")
      throw new UsageError(`no ${name} header`, {
        hint: `Pass ${flagNames[name]}, or --headers FILE with a "${name}: …" line.`,
      });
    headers[name] = value;
  }
  return headers as WebhookHeaders;
}

/**
 * The signature check of `Webhook.verify` without its time window: the package signs the
 * request as the sender would (`Webhook.sign`) and one of the header's `v1,` signatures must
 * be that one.
 */
function verifyIgnoringAge(
  webhook: { sign(id: string, timestamp: Date, payload: string): string },
  headers: WebhookHeaders,
  body: string,
): void {
  const seconds = Number(headers["webhook-timestamp"]);
  if (!/^\d+$/.test(headers["webhook-timestamp"]) || !Number.isSafeInteger(seconds))
    throw new UsageError(`webhook-timestamp is not Unix seconds: ${JSON.stringify(headers["webhook-timestamp"])}`);
  const expected = webhook.sign(headers["webhook-id"], new Date(seconds * 1000), body);
  if (!headers["webhook-signature"].split(" ").includes(expected))
    throw new WebhookMismatch("No matching signature found");
}

/** What `verifyIgnoringAge` throws on a mismatch, handled as the package's own failure is. */
class WebhookMismatch extends Error {
  override name = "WebhookVerificationError" as const;
}

function hintFor(reason: string): string {
  if (/too old|too new/.test(reason))
    return "The timestamp is more than 5 minutes from now: for a request saved earlier, pass --ignore-age.";
  if (/Invalid Signature Headers/.test(reason)) return "webhook-timestamp must be Unix seconds.";
  return "Check the secret (it must be the one sds-sync signs with) and that the body is the exact bytes received: a file saved with an extra final line break does not match.";
}

/** The event's `type` (such as `outcomes.complete`), when the body is an event of sds-sync. */
function eventType(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { type?: unknown };
    return typeof parsed.type === "string" ? parsed.type : undefined;
  } catch {
    return undefined;
  }
}
