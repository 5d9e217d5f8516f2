import { createCliClient } from "../connection/client.ts";
import { defineCommand, type CommandContext } from "../framework/command.ts";
import { normalizeBaseUrl } from "../connection/config.ts";
import { UsageError } from "../framework/errors.ts";
import { profilesPath, readProfiles, selectProfile, writeProfiles, type Profile } from "../connection/profiles.ts";
import { promptHidden, readStdinText } from "../framework/stdin.ts";

/** `sds login`: checks a base URL and key, then saves them as a profile. */
export const command = defineCommand({
  description:
    "Saves a base URL and API key as a profile, after checking the key against the service (Get Supplier Details). The key is read without echo on a terminal, else from standard input (or SDS_API_KEY); it is never a flag value, where `ps` and shell history would show it. Profiles live in $XDG_CONFIG_HOME/sds/profiles.json (default ~/.config/sds), readable by you only (mode 0600). Nothing is saved when the key is rejected.",
  options: {
    verify: {
      type: "boolean",
      negatable: true,
      description: "check the key against the service before saving (default); --no-verify saves it unchecked",
    },
  },
  globalOptions: ["base-url", "profile", "api-key-stdin", "output", "json", "color", "timeout", "debug", "help"],
  examples: [
    {
      command: "login --base-url https://api.example.com/api/v1",
      description: 'Prompts for the key, checks it, saves profile "default"',
    },
    {
      command: "login --profile sandbox --base-url http://127.0.0.1:4010/api/v1 < key.txt",
      description: "Reads the key from a file",
    },
    {
      command: 'login --profile prod --api-key-stdin <<< "$(pass show sds/prod)"',
      description: "From a password manager",
    },
  ],
  async run(context) {
    const { globals, io, output } = context;
    const profileName = selectProfile(globals.profile, io.env).name;
    const path = profilesPath(io.env);
    const file = await readProfiles(path);
    const existing = file.profiles.get(profileName);

    const typedBaseUrl = globals.baseUrl ?? io.env.SDS_BASE_URL ?? existing?.baseUrl;
    if (typedBaseUrl === undefined || typedBaseUrl.trim() === "") {
      throw new UsageError("`sds login` needs the base URL", {
        hint: "Pass --base-url (such as https://api.example.com/api/v1) or set SDS_BASE_URL.",
      });
    }
    const baseUrl = await normalizeBaseUrl(typedBaseUrl, globals.baseUrl === undefined ? "SDS_BASE_URL" : "--base-url");
    const apiKey = await readKey(context);
    context.registerSecret(apiKey);

    let supplier: Pick<Profile, "supplierId" | "supplierName"> = {};
    if (context.options.verify !== false) {
      const client = await createCliClient(context, baseUrl, apiKey);
      const { data: account } = await client.account.get({ signal: context.signal });
      supplier = { supplierId: account.Id, supplierName: account.Name };
    }
    const profile: Profile = { baseUrl, apiKey, ...supplier, savedAt: new Date().toISOString() };
    await writeProfiles(path, { version: 1, profiles: new Map([...file.profiles, [profileName, profile]]) });

    const summary = {
      profile: profileName,
      profilesPath: path,
      baseUrl,
      verified: context.options.verify !== false,
      ...supplier,
    };
    if (output.format !== "table") return output.document(summary);
    const who =
      supplier.supplierId === undefined
        ? "key not checked"
        : `supplier ${supplier.supplierId} (${supplier.supplierName ?? ""})`;
    output.note(
      `${output.errorStyles.green("✓")} Logged in to ${baseUrl} as ${who}; saved profile "${profileName}" to ${path}.`,
    );
  },
});

async function readKey(context: Pick<CommandContext, "io" | "globals">): Promise<string> {
  const { io, globals } = context;
  let key: string;
  if (globals.apiKeyStdin) key = await readStdinText(io.stdin);
  else if (io.env.SDS_API_KEY !== undefined && io.env.SDS_API_KEY.trim() !== "") key = io.env.SDS_API_KEY;
  else if (io.stdin.isTTY === true) key = await promptHidden(io, "API key (input hidden): ");
  else key = await readStdinText(io.stdin);
  key = key.trim();
  if (key === "")
    throw new UsageError("no API key given", {
      hint: "Type it at the prompt, or pipe it in: `sds login --base-url URL < key.txt`.",
    });
  return key;
}
