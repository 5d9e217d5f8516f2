import { once } from "node:events";
import type { Sandbox } from "@sds/testing";
import { defineCommand } from "../framework/command.ts";
import { CliError, UsageError } from "../framework/errors.ts";
import { ExitCode } from "../framework/exit-codes.ts";
import { parseNumberOption } from "../framework/option-values.ts";

/** `sds sandbox`: runs the fake service locally until Ctrl-C. */
export const command = defineCommand({
  description:
    "Runs a local fake of the Supplier Data Service (from @sds/testing) with seeded, realistic data, and prints its base URL (ending in /api/v1) and API keys. It keeps running until Ctrl-C or SIGTERM, then closes cleanly. The control routes under /__sandbox/ are on. --api-key sets the key of the first supplier: it is a sandbox key of your choosing, not a secret.",
  options: {
    port: { type: "string", valueName: "N", description: "TCP port; 0 picks a free one (default 0)" },
    host: { type: "string", valueName: "HOST", description: "interface to listen on (default 127.0.0.1)" },
    seed: {
      type: "string",
      valueName: "N",
      description: "seed of the generated data: the same seed gives the same surveys (default 1)",
    },
    surveys: { type: "string", valueName: "N", description: "live surveys per supplier (default 100)" },
    suppliers: {
      type: "string",
      valueName: "N",
      description: "number of suppliers, each with its own key (default 1)",
    },
    "api-key": {
      type: "string",
      valueName: "KEY",
      description: "API key of the first supplier (default: derived from the seed)",
    },
    marketplace: {
      type: "boolean",
      description:
        "also run the fake marketplace: every survey's SurveyUrl points at it, so visiting an entry link (sds link entry) ends the session in an outcome drawn from the survey's hidden conversion, redirects to the account's redirect URL and calls its S2S URLs (set them with sds account set-s2s); PUT MARKETPLACE/__sandbox/respondents/{uid}/answers tells it a respondent's true answers, and it screens out those who miss a survey's qualifications",
    },
    "marketplace-port": {
      type: "string",
      valueName: "N",
      description: "TCP port of the marketplace, with --marketplace; 0 picks a free one (default 0)",
    },
  },
  globalOptions: ["output", "json", "color", "debug", "help"],
  examples: [
    {
      command: "sandbox --port 4010 --seed 1 --surveys 500 --api-key dev-key",
      description: "A sandbox on a fixed port with 500 surveys",
    },
    {
      command:
        "sandbox --port 4010 --api-key dev-key & SDS_BASE_URL=http://127.0.0.1:4010/api/v1 SDS_API_KEY=dev-key sds surveys list",
      description: "Try the CLI against it",
    },
    {
      command: "sandbox --port 4010 --api-key dev-key --marketplace --marketplace-port 4011",
      description: "With the marketplace side of the respondent loop on port 4011",
    },
  ],
  async run(context) {
    const { options, output } = context;
    const integer = (name: "port" | "seed" | "surveys" | "suppliers", min: number, max: number) => {
      const value = options[name];
      return value === undefined ? {} : { [name]: parseNumberOption(name, value, { integer: true, min, max }) };
    };
    if (options["api-key"]?.trim() === "") throw new UsageError("--api-key must not be empty");
    const marketplacePortOption = options["marketplace-port"];
    if (marketplacePortOption !== undefined && options.marketplace !== true)
      throw new UsageError("--marketplace-port needs --marketplace");
    const marketplacePort =
      marketplacePortOption === undefined
        ? undefined
        : parseNumberOption("marketplace-port", marketplacePortOption, { integer: true, min: 0, max: 65_535 });
    const settings = {
      ...integer("port", 0, 65_535),
      ...integer("seed", 0, Number.MAX_SAFE_INTEGER),
      ...integer("surveys", 0, 100_000),
      ...integer("suppliers", 1, 100),
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options["api-key"] === undefined ? {} : { apiKey: options["api-key"] }),
      ...(options.marketplace === true
        ? { marketplace: true, ...(marketplacePort === undefined ? {} : { marketplacePort }) }
        : {}),
    };
    let sandbox: Sandbox;
    try {
      const { startSandbox } = await import("@sds/testing");
      sandbox = await startSandbox(settings);
    } catch (error) {
      // Both servers bind the same host; the error's port says which one could not listen.
      const port = (error as { port?: unknown }).port;
      const marketplaceTaken = typeof port === "number" && port !== 0 && port === marketplacePort;
      throw listenError(
        error,
        options.host ?? "127.0.0.1",
        typeof port === "number" ? String(port) : (options.port ?? "0"),
        marketplaceTaken ? "--marketplace-port" : "--port",
      );
    }
    try {
      const marketplaceUrl = sandbox.marketplaceOrigin;
      const marketplaceControlUrl = sandbox.marketplaceControlUrl;
      const summary = {
        baseUrl: sandbox.baseUrl,
        controlUrl: sandbox.controlUrl,
        keys: sandbox.keys,
        ...(marketplaceUrl === undefined ? {} : { marketplaceUrl, marketplaceControlUrl }),
      };
      if (output.format === "table") {
        const { renderKeyValues } = await import("../framework/table.ts");
        const first = sandbox.keys[0];
        await output.write(
          `${output.styles.bold("Sandbox running")} (Ctrl-C to stop)\n` +
            renderKeyValues(
              [
                ["Base URL", sandbox.baseUrl],
                ["Control", sandbox.controlUrl],
                ...(marketplaceUrl === undefined
                  ? []
                  : ([
                      ["Marketplace", marketplaceUrl],
                      ["Marketplace control", marketplaceControlUrl ?? ""],
                    ] as const)),
                ...sandbox.keys.map((key) => [`Supplier ${key.supplierId}`, `API key ${key.apiKey}`] as const),
              ],
              output.styles,
            ) +
            (first === undefined
              ? ""
              : `\nTry it:\n  export SDS_BASE_URL=${sandbox.baseUrl} SDS_API_KEY=${first.apiKey}\n  sds surveys list\n`) +
            (marketplaceUrl === undefined ? "" : marketplaceUsage(marketplaceUrl)),
        );
      } else {
        await output.write(JSON.stringify(summary) + "\n");
      }
      if (!context.signal.aborted) await once(context.signal, "abort");
      output.note("Stopping the sandbox…");
    } finally {
      await sandbox.close();
    }
  },
});

/** How to drive the respondent loop through the marketplace, for the table output. */
function marketplaceUsage(marketplaceUrl: string): string {
  return (
    `\nThe respondent loop: every survey's SurveyUrl points at the marketplace (${marketplaceUrl}/s/{SurveyId}?…).\n` +
    "  sds account set-s2s --receiver http://127.0.0.1:8787   # where outcomes go (such as sds-sync's receiver)\n" +
    '  curl -i "$(sds link entry SURVEY_ID --token t-1)"       # a visit: outcome drawn from the survey\'s hidden conversion,\n' +
    "                                                         # 302 to the redirect URL, S2S call to the URL for that outcome\n" +
    `  curl -X PUT '${marketplaceUrl}/__sandbox/respondents/RESPONDENT_ID/answers' -H 'content-type: application/json' \\\n` +
    `    -d '{"answers":{"42":["34"],"43":["2"]}}'              # a respondent's true answers: surveys they miss screen them out\n`
  );
}

/** A failure to listen, as one line that says which address and what to try. */
function listenError(error: unknown, host: string, port: string, flag: "--port" | "--marketplace-port"): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE")
    return new CliError(`cannot listen on ${host}:${port}: the port is in use`, ExitCode.Failure, {
      hint: `Pick another ${flag}, or ${flag} 0 for a free one.`,
      cause: error,
    });
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new UsageError(`cannot listen on ${host}: no such local address`, {
      hint: "Pass --host 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).",
      cause: error,
    });
  }
  if (code === "EACCES")
    return new CliError(`cannot listen on ${host}:${port}: permission denied`, ExitCode.Failure, {
      hint: `Ports below 1024 need privileges; pick a higher ${flag}.`,
      cause: error,
    });
  return error instanceof Error ? error : new Error(String(error));
}
