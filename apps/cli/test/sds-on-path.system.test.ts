import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestHome, type TestHome } from "./support/run-sds.ts";
import { useCliTestbed } from "./support/testbed.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const binFolder = fileURLToPath(new URL("../bin", import.meta.url));

const testbed = useCliTestbed({
  fake: { suppliers: [{ supplierId: 1001, apiKey: "path-test-key", surveys: 3 }] },
});

let elsewhere: TestHome;
beforeEach(() => {
  elsewhere = createTestHome();
});
afterEach(() => {
  elsewhere.remove();
});

/**
 * Runs a shell command in a directory outside the repository, with only the system's PATH (no
 * Node 24, no pnpm). Asynchronous: the fake answering the CLI runs in this process.
 */
function shellElsewhere(
  command: string,
  env: Readonly<Record<string, string>> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", command], {
      cwd: elsewhere.path,
      env: {
        PATH: "/usr/local/bin:/usr/bin:/bin",
        HOME: elsewhere.path,
        XDG_CONFIG_HOME: elsewhere.configPath,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => {
      resolve({ status, stdout, stderr });
    });
  });
}

describe("sds on PATH from any directory", () => {
  it("runs this clone's build with apps/cli/bin on PATH, from outside the repository and without Node 24 on PATH", async () => {
    const version = await shellElsewhere(`export PATH="${binFolder}:$PATH"; sds --version`);
    expect(version).toMatchObject({ status: 0, stdout: "0.1.0\n", stderr: "" });
    const listed = await shellElsewhere(
      `export PATH="${binFolder}:$PATH"; sds surveys list --fields SurveyId -o json`,
      {
        ...testbed.fake.env,
      },
    );
    expect(listed.stderr).toBe("");
    expect(JSON.parse(listed.stdout)).toHaveLength(3);
  });

  it("is put on PATH by sourcing scripts/env.sh", async () => {
    // The real HOME: env.sh runs `pnpm install`, whose store lives under it (another HOME is another store).
    const result = await shellElsewhere(
      `source "${repoRoot}scripts/env.sh" >/dev/null && cd "${elsewhere.path}" && command -v sds && sds --version`,
      { HOME: process.env.HOME ?? elsewhere.path },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${binFolder}/sds\n0.1.0\n`);
  }, 120_000);
});
