/*
 * The end-to-end release test, in the system tier (`pnpm --filter @sds/release-tooling test:system`).
 * In a temporary copy of the repository: `changeset version`, a build, and `changeset publish`
 * into a private Verdaccio started here. Then, as another team would, in empty projects outside
 * the workspace: install only @sds/client by semver range, type-check a strict consumer and run
 * it against the fake; install @sds/testing and run a Vitest test; `npx @sds/cli --version`;
 * install @sds/sync and start it on SQLite until /readyz. The real tree is never touched.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFakeSupplierApi, DEFAULT_API_KEY, type FakeServer, type FakeSupplierApi } from "@sds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listPublicPackages, repoRoot, type PublicPackage } from "../workspace.ts";
import {
  clientConsumer,
  consumerManifest,
  scopedNpmrc,
  strictTsconfig,
  testingConsumer,
  verdaccioConfig,
} from "./consumers.ts";
import { copyFiles, freePort, run, start, step, stop, waitForOk, writeFiles } from "./steps.ts";

const require = createRequire(import.meta.url);
const verdaccioBin = join(require.resolve("verdaccio/package.json"), "..", "bin", "verdaccio");
const tscBin = require.resolve("typescript/bin/tsc");

interface PublishedPackage {
  readonly name: string;
  readonly version: string;
  readonly manifest: Record<string, unknown>;
  readonly files: readonly string[];
}

describe("a release, published to a private registry and used from outside the workspace", () => {
  const work = mkdtempSync(join(tmpdir(), "sds-release-test-"));
  const repo = join(work, "repo");
  let registryUrl = "";
  let registry: ChildProcess | undefined;
  let api: FakeSupplierApi | undefined;
  let fake: FakeServer | undefined;
  const published = new Map<string, PublishedPackage>();
  let publicPackages: PublicPackage[] = [];

  /** pnpm in a consumer project: @sds/* from the test's registry, the rest as usual (store first). */
  const pnpm = (cwd: string, args: readonly string[]) =>
    run("pnpm", [...args], { cwd, timeoutMs: 180_000, env: { npm_config_prefer_offline: "true" } });

  function consumer(name: string, files: Readonly<Record<string, string>> = {}): string {
    const dir = join(work, name);
    writeFiles(dir, { "package.json": consumerManifest(name), ".npmrc": scopedNpmrc(registryUrl), ...files });
    return dir;
  }

  beforeAll(async () => {
    await step("copy the repository (tracked and new files) to a temporary directory", async () => {
      const files = (
        await run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: repoRoot })
      )
        .split("\0")
        .filter((file) => file !== "" && existsSync(join(repoRoot, file)));
      copyFiles(repoRoot, repo, files);
    });
    await step("install the copy's dependencies from the store", () =>
      run("pnpm", ["install", "--frozen-lockfile", "--offline", "--reporter=silent"], {
        cwd: repo,
        timeoutMs: 180_000,
      }),
    );
    publicPackages = listPublicPackages(repo);

    // A release needs pending changesets; right after a release there are none, so the copy
    // always gets one patch for every public package beside whatever is pending.
    writeFiles(join(repo, ".changeset"), {
      "release-test-patch.md": `---\n${publicPackages.map((pkg) => `"${pkg.name}": patch`).join("\n")}\n---\nRelease test: a patch of every public package.\n`,
    });
    await step("changeset version", () => run("pnpm", ["exec", "changeset", "version"], { cwd: repo }));
    await step("build the versioned packages", () =>
      run(
        "pnpm",
        [
          "exec",
          "turbo",
          "run",
          "build",
          ...publicPackages.map((pkg) => `--filter=${pkg.name}`),
          "--output-logs=errors-only",
        ],
        { cwd: repo, timeoutMs: 300_000 },
      ),
    );

    const port = await freePort();
    registryUrl = `http://127.0.0.1:${port}/`;
    await step(`start Verdaccio at ${registryUrl}`, async () => {
      const storage = join(work, "registry");
      writeFiles(storage, { "config.yaml": verdaccioConfig(storage) });
      const started = start(
        process.execPath,
        [verdaccioBin, "--config", join(storage, "config.yaml"), "--listen", `127.0.0.1:${port}`],
        { cwd: storage },
      );
      registry = started.child;
      try {
        await waitForOk(`${registryUrl}-/ping`, 60_000, started.child);
      } catch (error) {
        throw new Error(`Verdaccio did not start:\n${started.output()}`, { cause: error });
      }
    });

    await step("changeset publish into it", async () => {
      writeFiles(repo, {
        ".npmrc": `${readFileSync(join(repo, ".npmrc"), "utf8")}\nregistry=${registryUrl}\n${scopedNpmrc(registryUrl)}`,
      });
      await run("pnpm", ["exec", "changeset", "publish", "--no-git-tag"], { cwd: repo, timeoutMs: 180_000 });
      for (const pkg of listPublicPackages(repo)) {
        const packument = (await (await fetch(`${registryUrl}${pkg.name.replace("/", "%2f")}`)).json()) as {
          "dist-tags"?: { latest?: string };
          versions?: Record<string, Record<string, unknown> & { dist: { tarball: string } }>;
        };
        const version = packument["dist-tags"]?.latest ?? "";
        const manifest = packument.versions?.[version];
        if (!manifest) throw new Error(`${pkg.name} was not published`);
        const tarball = join(work, `${pkg.name.replace("/", "-")}.tgz`);
        writeFileSync(tarball, new Uint8Array(await (await fetch(manifest.dist.tarball)).arrayBuffer()));
        const files = (await run("tar", ["tzf", tarball], { cwd: work })).split("\n").filter((line) => line !== "");
        published.set(pkg.name, { name: pkg.name, version, manifest, files });
      }
    });

    api = createFakeSupplierApi({ seed: 5 });
    fake = await api.listen();
  }, 900_000);

  afterAll(async () => {
    await api?.close();
    if (registry) await stop(registry);
    rmSync(work, { recursive: true, force: true });
  });

  it("publishes every public package at its new version, with LICENSE and CHANGELOG.md and without repository-only exports", () => {
    expect([...published.keys()].sort()).toEqual(publicPackages.map((pkg) => pkg.name).sort());
    for (const pkg of published.values()) {
      expect(pkg.version, pkg.name).not.toBe("0.0.0");
      expect(pkg.files, pkg.name).toEqual(
        expect.arrayContaining(["package/LICENSE", "package/CHANGELOG.md", "package/package.json"]),
      );
      expect(
        pkg.files.some((file) => file.startsWith("package/src/")),
        pkg.name,
      ).toBe(false);
      const manifest = JSON.stringify({
        exports: pkg.manifest["exports"],
        main: pkg.manifest["main"],
        types: pkg.manifest["types"],
        bin: pkg.manifest["bin"],
      });
      expect(manifest, pkg.name).not.toContain("@sds/source");
      expect(manifest, pkg.name).not.toMatch(/\.\/src\//);
      expect(JSON.stringify(pkg.manifest["dependencies"] ?? {}), pkg.name).not.toContain("workspace:");
    }
  });

  it("installs only @sds/client by range, type-checks a strict consumer and runs it against the fake", async () => {
    const version = published.get("@sds/client")?.version ?? "";
    const dir = consumer("client-consumer", { "tsconfig.json": strictTsconfig, "index.ts": clientConsumer });
    await step(`pnpm add @sds/client@^${version}`, () => pnpm(dir, ["add", `@sds/client@^${version}`]));
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies)).toEqual(["@sds/client"]);
    await step("tsc --noEmit on the strict consumer", () =>
      run(process.execPath, [tscBin, "-p", "tsconfig.json"], { cwd: dir }),
    );
    const output = await step("run the consumer against the fake", () =>
      run(process.execPath, ["index.ts"], {
        cwd: dir,
        env: { SDS_BASE_URL: fake?.baseUrl ?? "", SDS_API_KEY: DEFAULT_API_KEY },
      }),
    );
    const result = JSON.parse(output.trim()) as { surveys: number; missing: string };
    expect(result.surveys).toBeGreaterThan(0);
    expect(result.missing).toBe("NotFoundError");
  });

  it("installs @sds/testing and runs a Vitest test with it", async () => {
    const version = published.get("@sds/testing")?.version ?? "";
    const vitestVersion = (
      JSON.parse(readFileSync(require.resolve("vitest/package.json"), "utf8")) as { version: string }
    ).version;
    const dir = consumer("testing-consumer", { "fake.test.ts": testingConsumer });
    await step(`pnpm add -D @sds/testing@^${version} vitest@${vitestVersion}`, () =>
      pnpm(dir, ["add", "-D", `@sds/testing@^${version}`, `vitest@${vitestVersion}`]),
    );
    const output = await step("vitest run", () => pnpm(dir, ["exec", "vitest", "run"]));
    expect(output).toMatch(/1 passed/);
  });

  it("runs `npx @sds/cli --version`", async () => {
    const version = published.get("@sds/cli")?.version ?? "";
    const dir = consumer("cli-consumer");
    const output = await step("npx @sds/cli --version", () =>
      run("npx", ["--yes", `@sds/cli@^${version}`, "--version"], {
        cwd: dir,
        env: { npm_config_cache: join(work, "npm-cache") },
      }),
    );
    expect(output).toContain(version);
  });

  it("installs @sds/sync and starts it on SQLite until /readyz answers", async () => {
    const version = published.get("@sds/sync")?.version ?? "";
    const dir = consumer("sync-consumer");
    await step(`pnpm add @sds/sync@^${version}`, () => pnpm(dir, ["add", `@sds/sync@^${version}`]));
    const port = await freePort();
    const sync = start(join(dir, "node_modules", ".bin", "sds-sync"), [], {
      cwd: dir,
      env: {
        SDS_BASE_URL: fake?.baseUrl ?? "",
        SDS_API_KEY: DEFAULT_API_KEY,
        DATABASE_URL: `sqlite:${join(dir, "sync.db")}`,
        PORT: String(port),
        SYNC_INTERVAL: "1",
      },
    });
    try {
      await step("sds-sync: wait for /readyz", () => waitForOk(`http://127.0.0.1:${port}/readyz`, 60_000, sync.child));
    } catch (error) {
      throw new Error(`sds-sync did not become ready:\n${sync.output()}`, { cause: error });
    } finally {
      const code = await step("sds-sync: stop (SIGTERM)", () => stop(sync.child));
      expect(code, sync.output()).toBe(0);
    }
  });
});
