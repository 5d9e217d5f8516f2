import { readFile } from "node:fs/promises";
import { UrlSettingsBody, type UrlSettings } from "@sds/schemas";
import { connect } from "../../connection/client.ts";
import type { CommandContext } from "../../framework/command.ts";
import { CliError, UsageError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";
import { readStdinText } from "../../framework/stdin.ts";
import {
  diffUrlSettings,
  renderUrlSettingsDiff,
  urlSettingsFields,
  type UrlSettingsField,
} from "./url-settings-diff.ts";
import type { urlSettingsOptions, UrlSettingsTarget } from "./url-settings-options.ts";

const urlFlagFields: Readonly<Record<string, UrlSettingsField>> = {
  complete: "CompleteUrl",
  terminate: "TerminateUrl",
  "over-quota": "OverQuotaUrl",
  "security-terminate": "SecurityTerminateUrl",
};

/**
 * Updates the redirect or S2S URLs: reads the current account, applies the file and the
 * flags on top (unspecified fields keep their values), validates the result with
 * `UrlSettingsBody`, and sends it only when something changes and `--dry-run` is off.
 */
export async function runUrlSettingsUpdate(
  context: CommandContext<typeof urlSettingsOptions>,
  target: UrlSettingsTarget,
): Promise<void> {
  const { options, output } = context;
  if (options.enable === true && options.disable === true)
    throw new UsageError("--enable and --disable contradict each other; pass one");
  if (options["from-file"] === "-" && context.globals.apiKeyStdin) {
    throw new UsageError(
      "--from-file - and --api-key-stdin both read standard input; put the settings in a file or the key in SDS_API_KEY",
    );
  }
  const requested = {
    ...target.preset,
    ...(options["from-file"] === undefined ? {} : await readSettingsFile(options["from-file"], context)),
    ...settingsFromFlags(options),
  };
  if (Object.keys(requested).length === 0) {
    throw new UsageError(
      `nothing to change: pass --complete, --terminate, --over-quota, --security-terminate, --enable/--disable or --from-file`,
      {
        hint: `Run \`sds help ${context.commandPath.join(" ")}\` for examples.`,
      },
    );
  }

  const { client } = await connect(context);
  const { data: account } = await client.account.get({ signal: context.signal });
  const current = account[target.accountField];
  const next = validateSettings({ ...pickSettings(current), ...requested }, requested);
  const changes = diffUrlSettings(current, next);
  const dryRun = options["dry-run"] === true;
  const report = { supplierId: account.Id, settings: target.accountField, dryRun, changes };

  if (changes.length === 0) {
    if (output.format === "table")
      output.note(
        `Nothing to change: the ${target.label} of supplier ${account.Id} already have these values. Nothing was sent.`,
      );
    else await output.document({ ...report, sent: false });
    return;
  }
  const heading = (styles: typeof output.styles) =>
    `${dryRun ? "Would change" : "Changed"} the ${target.label} of supplier ${account.Id} (${account.Name}):\n${renderUrlSettingsDiff(changes, styles)}`;
  if (dryRun) {
    if (output.format === "table") {
      await output.write(heading(output.styles));
      output.note("Dry run: nothing was sent.");
    } else {
      await output.document({ ...report, sent: false });
    }
    return;
  }

  const update =
    target.accountField === "RedirectUrls"
      ? client.account.updateRedirectUrls.bind(client.account)
      : client.account.updateS2SRedirectUrls.bind(client.account);
  const response = await update(account.Id, next, { signal: context.signal });
  const confirmation = response.messages[0] ?? "updated";
  if (output.format === "table") {
    await output.write(heading(output.styles));
    output.note(`${output.errorStyles.green("✓")} ${confirmation}`);
  } else {
    await output.document({ ...report, sent: true, messages: response.messages });
  }
}

function settingsFromFlags(
  options: CommandContext<typeof urlSettingsOptions>["options"],
): Partial<Record<UrlSettingsField, string | boolean>> {
  const settings: Partial<Record<UrlSettingsField, string | boolean>> = {};
  for (const [flag, field] of Object.entries(urlFlagFields)) {
    const value = options[flag as keyof typeof options];
    if (typeof value === "string") settings[field] = value;
  }
  if (options.enable === true) settings.Enabled = true;
  if (options.disable === true) settings.Enabled = false;
  return settings;
}

async function readSettingsFile(
  path: string,
  context: CommandContext,
): Promise<Partial<Record<UrlSettingsField, string | boolean>>> {
  let text: string;
  try {
    text = path === "-" ? await readStdinText(context.io.stdin) : await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, ExitCode.Usage, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new UsageError(`${path} must hold a JSON object such as {"CompleteUrl": "https://…"}`);
  const settings: Partial<Record<UrlSettingsField, string | boolean>> = {};
  for (const [key, value] of Object.entries(parsed)) {
    // A misspelt key would otherwise be ignored silently and the URL left unchanged.
    if (!(urlSettingsFields as readonly string[]).includes(key)) {
      throw new UsageError(`${path}: unknown field "${key}"`, { hint: `Fields: ${urlSettingsFields.join(", ")}.` });
    }
    const expected = key === "Enabled" ? "boolean" : "string";
    if (typeof value !== expected) throw new UsageError(`${path}: ${key} must be a ${expected}`);
    settings[key as UrlSettingsField] = value as string | boolean;
  }
  return settings;
}

function pickSettings(settings: UrlSettings): Record<UrlSettingsField, string | boolean> {
  return Object.fromEntries(urlSettingsFields.map((field) => [field, settings[field]])) as Record<
    UrlSettingsField,
    string | boolean
  >;
}

/** @throws UsageError naming each bad field, and whether the bad value is the current one. */
function validateSettings(
  settings: Record<string, unknown>,
  requested: Readonly<Record<string, unknown>>,
): UrlSettingsBody {
  const result = UrlSettingsBody.safeParse(settings);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? "body");
    const origin = Object.hasOwn(requested, field) ? "" : " (the current value; pass a new one to fix it)";
    return `${field} ${JSON.stringify(settings[field])}: ${issue.message}${origin}`;
  });
  throw new UsageError(`invalid ${problems.join("; ")}`, { hint: "Nothing was sent." });
}
