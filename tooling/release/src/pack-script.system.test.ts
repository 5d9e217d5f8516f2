import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createFakeSupplierApi, DEFAULT_API_KEY } from "@sds/testing";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "./workspace.ts";

const run = promisify(execFile);
const packScript = join(repoRoot, "scripts", "pack.sh");

/** Runs `bash scripts/pack.sh ARGS` from `cwd`, as the README says; resolves with its exit status and output. */
async function pack(args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run("bash", [packScript, ...args], { cwd, timeout: 300_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/**
 * The README's way to use a package while nothing is published: `bash scripts/pack.sh @sds/client
 * ./out`, then the `npm install` line it prints, in a folder outside the workspace, then an import
 * from Node. Needs the npm registry (or its cache) for the third-party dependencies.
 */
describe("scripts/pack.sh (the packages are not published yet)", () => {
  const directory = mkdtempSync(join(tmpdir(), "sds-pack-"));
  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("packs @sds/client with @sds/schemas, and the npm install line it prints gives a client that works from Node", async () => {
    const packed = await pack(["@sds/client", "./out"], directory);
    expect(packed.code, packed.stderr).toBe(0);
    expect(readdirSync(join(directory, "out")).sort()).toEqual([
      expect.stringMatching(/^sds-client-\d+\.\d+\.\d+.*\.tgz$/),
      expect.stringMatching(/^sds-schemas-\d+\.\d+\.\d+.*\.tgz$/),
    ]);
    const install = /^ {2}(npm install \.\/out\/\S+\.tgz \.\/out\/\S+\.tgz)$/m.exec(packed.stdout)?.[1];
    expect(install, packed.stdout).toBeDefined();

    writeFileSync(
      join(directory, "package.json"),
      JSON.stringify({ name: "pack-consumer", private: true, type: "module" }),
    );
    const [, , ...tarballs] = (install ?? "").split(" ");
    await run("npm", ["install", "--no-audit", "--no-fund", "--no-package-lock", ...tarballs], {
      cwd: directory,
      timeout: 300_000,
      env: { ...process.env, npm_config_update_notifier: "false" },
    });

    const api = createFakeSupplierApi({ seed: 9 });
    const server = await api.listen();
    try {
      const script = `import { createClient } from "@sds/client";
const sds = createClient({ baseUrl: process.env.SDS_BASE_URL, apiKey: process.env.SDS_API_KEY });
const list = await sds.surveys.list();
console.log(JSON.stringify({ surveys: list.Surveys.length }));`;
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
        cwd: directory,
        env: { ...process.env, SDS_BASE_URL: server.baseUrl, SDS_API_KEY: DEFAULT_API_KEY },
      });
      expect(JSON.parse(stdout)).toEqual({ surveys: api.listSurveys(api.keys[0]?.supplierId ?? 0).length });
    } finally {
      await api.close();
    }
  }, 600_000);

  it("packs every workspace package a package needs, transitively: @sds/sync takes @sds/sync-client, @sds/client, @sds/routing and @sds/schemas", async () => {
    const packed = await pack(["--no-build", "@sds/sync", join(directory, "sync")], directory);
    expect(packed.code, packed.stderr).toBe(0);
    expect(
      readdirSync(join(directory, "sync"))
        .map((file) => file.replace(/-\d+\.\d+\.\d+.*\.tgz$/, ""))
        .sort(),
    ).toEqual(["sds-client", "sds-routing", "sds-schemas", "sds-sync", "sds-sync-client"]);
  }, 300_000);

  it("refuses a package that is not published, naming the ones that are, with exit status 64", async () => {
    const unknown = await pack(["@sds/nothing", join(directory, "none")], directory);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toMatch(
      /"@sds\/nothing" is not a package of this workspace; one of .*@sds\/client.*@sds\/sync/,
    );
    const internal = await pack(["@sds/release-tooling", join(directory, "none")], directory);
    expect(internal.code).toBe(64);
    expect(internal.stderr).toContain('"@sds/release-tooling" is private: it is never published');
    expect(readdirSync(join(directory, "none"))).toEqual([]);
  }, 120_000);
});
