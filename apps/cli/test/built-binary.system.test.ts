import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canaryApiKey } from "./support/fake-service.ts";
import { runBuiltSdsOnTerminal, sdsBinary } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

/*
 * What only the built binary in a process of its own shows: a pipe its reader closes early, and
 * a real pseudo-terminal (the fast tier runs `sds` in-process on a stand-in terminal).
 */

const testbed = useCliTestbed({ fake: { suppliers: [{ supplierId: 1001, apiKey: canaryApiKey, surveys: 400 }] } });

describe("the built sds on pipes and terminals", () => {
  it("stops quietly, exit 0, when the reader closes the pipe early", async () => {
    // Asynchronously: the testbed.fake answers from this process, so its event loop must keep running.
    const child = spawn(
      "bash",
      ["-c", `'${process.execPath}' '${sdsBinary}' surveys list -o ndjson | head -n 1; exit "\${PIPESTATUS[0]}"`],
      {
        env: {
          PATH: process.env.PATH,
          HOME: testbed.home.path,
          XDG_CONFIG_HOME: testbed.home.configPath,
          ...testbed.fake.env,
        },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const [status] = (await once(child, "close")) as [number | null];
    expect(stderr).toBe("");
    expect(status).toBe(0);
    expect(stdout.trimEnd().split("\n")).toHaveLength(1);
  });

  it("writes the script even when stdout is a terminal (no table formatting)", () => {
    const result = spawnSync("script", ["-qec", `${process.execPath} ${sdsBinary} completion bash`, "/dev/null"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: testbed.home.path },
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("complete -o default -F _sds_completion sds");
  });

  it("asks for the key without echoing it on a real terminal", async () => {
    const result = await runBuiltSdsOnTerminal(
      ["login", "--base-url", testbed.fake.baseUrl, "--no-color"],
      testbed.home,
      { answer: { after: "API key (input hidden): ", input: `${canaryApiKey}\r` } },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("API key (input hidden): ");
    expect(result.stdout).toContain('saved profile "default"');
    expect(result.stdout).not.toContain(canaryApiKey);
    const profiles = JSON.parse(readFileSync(join(testbed.home.configPath, "sds", "profiles.json"), "utf8")) as {
      profiles: Record<string, { apiKey?: string }>;
    };
    expect(profiles.profiles.default?.apiKey).toBe(canaryApiKey);
  });
});
