import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID } from "@sds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { spawnService } from "./subprocess.ts";
import { ensureSystemTool } from "./system-tool.ts";

const run = promisify(execFile);
const deploy = fileURLToPath(new URL("../deploy/", import.meta.url));
const root = fileURLToPath(new URL("../../../", import.meta.url));
const systemdAnalyze = ensureSystemTool("systemd-analyze", "systemd", "the systemd unit check");
const version = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string })
  .version;

/**
 * The install path the Dockerfile follows, exercised for real: pack the tarballs (as published),
 * install them with plain npm into an empty folder outside the workspace, start `sds-sync` from
 * there. Needs the packages built (the test task depends on build) and the npm registry for the
 * third-party dependencies.
 */
/** Runs the Dockerfile's HEALTHCHECK command (exec form) with `PORT` set, as Docker would inside the container; resolves with its exit status. */
async function dockerHealthcheck(port: string): Promise<number> {
  const dockerfile = readFileSync(join(deploy, "..", "Dockerfile"), "utf8");
  const command = /^HEALTHCHECK .*?CMD (\[.*\])$/m.exec(dockerfile.replaceAll("\\\n", ""))?.[1];
  if (!command) throw new Error("the Dockerfile has no HEALTHCHECK CMD in exec form");
  const [program, ...args] = JSON.parse(command) as string[];
  expect(program).toBe("node");
  try {
    await run(process.execPath, args, { env: { PORT: port }, timeout: 10_000 });
    return 0;
  } catch (error) {
    return (error as { code?: number }).code ?? -1;
  }
}

describe("sds-sync installed from its packed tarballs with plain npm", () => {
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-install-"));
  const app = join(directory, "app");
  const bin = join(app, "node_modules", ".bin", "sds-sync");

  beforeAll(async () => {
    for (const built of [
      "packages/schemas/dist",
      "packages/client/dist",
      "packages/routing/dist",
      "apps/sync/dist/main.js",
    ]) {
      if (!existsSync(join(root, built)))
        throw new Error(`${built} is missing: build first (pnpm exec turbo run build --filter=@sds/sync...)`);
    }
    await run(join(deploy, "pack-tarballs.sh"), [join(directory, "tarballs")], { cwd: root });
    await run(join(deploy, "install-tarballs.sh"), [app, join(directory, "tarballs")], {
      cwd: directory,
      env: { ...process.env, npm_config_update_notifier: "false" },
    });
  }, 420_000);
  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("is the install the Dockerfile makes: same scripts, same layout, non-root, Node 24 slim", () => {
    const dockerfile = readFileSync(join(deploy, "..", "Dockerfile"), "utf8");
    expect(dockerfile).toContain("apps/sync/deploy/pack-tarballs.sh /tarballs");
    expect(dockerfile).toContain("install-tarballs.sh /opt/sds-sync /tmp/tarballs");
    expect(dockerfile).toContain('ENTRYPOINT ["/opt/sds-sync/node_modules/.bin/sds-sync"]');
    expect(dockerfile.match(/^FROM node:24-slim/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^USER node$/m);
    // A first sync of a large inventory takes minutes: the health check must not fail it before it ends.
    expect(Number(/--start-period=(\d+)s/.exec(dockerfile)?.[1])).toBeGreaterThanOrEqual(600);
  });

  it("installs outside the workspace with nothing of the repository on the path", () => {
    expect(existsSync(bin)).toBe(true);
    expect(existsSync(join(app, "node_modules", "@sds", "testing")), "a dev dependency was installed").toBe(false);
    expect(existsSync(join(app, "node_modules", "@sds", "sync", "dist", "demo.js")), "the demo is not published").toBe(
      false,
    );
    for (const recipe of [
      "deploy/sqlite-backup.js",
      "deploy/alerts.yml",
      "deploy/sds-sync.service",
      "docs/runbook.md",
    ]) {
      expect(existsSync(join(app, "node_modules", "@sds", "sync", recipe)), `${recipe} ships with the package`).toBe(
        true,
      );
    }
  });

  it("answers --version and --help without any configuration", async () => {
    const env = { PATH: process.env.PATH ?? "" };
    const versionRun = await run(bin, ["--version"], { cwd: app, env });
    expect(versionRun.stdout.trim()).toMatch(new RegExp(`^(sds-sync )?v?${version.replaceAll(".", "\\.")}$`));
    const help = await run(bin, ["--help"], { cwd: app, env });
    for (const variable of [
      "SDS_BASE_URL",
      "SDS_API_KEY",
      "DATABASE_URL",
      "SYNC_INTERVAL",
      "SYNC_API_TOKEN",
      "SYNC_RETENTION_SECONDS",
    ])
      expect(help.stdout).toContain(variable);
  });

  it("starts from the install against the fake on SQLite, syncs the inventory and becomes ready, then stops cleanly", async () => {
    const api = createFakeSupplierApi({
      suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 25 }],
    });
    const fake = await api.listen();
    try {
      const service = spawnService(
        {
          SDS_BASE_URL: fake.baseUrl,
          SDS_API_KEY: DEFAULT_API_KEY,
          DATABASE_URL: "sqlite:./data/sds.db",
          SYNC_INTERVAL: "60",
        },
        [],
        { command: [bin], cwd: app },
      );
      const url = await service.url;
      await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, 30_000);
      expect(await dockerHealthcheck(new URL(url).port), "the image's HEALTHCHECK passes on a ready service").toBe(0);
      const list = (await (await fetch(`${url}/v1/surveys?limit=1000`)).json()) as { surveys: { id: number }[] };
      expect(list.surveys.map((survey) => survey.id)).toEqual(
        api.listSurveys(DEFAULT_SUPPLIER_ID).map((survey) => survey.SurveyId),
      );
      expect(existsSync(join(app, "data", "sds.db"))).toBe(true);
      service.child.kill("SIGTERM");
      expect(await service.exited).toEqual({ code: 0, signal: null });
      expect(await dockerHealthcheck(new URL(url).port), "the image's HEALTHCHECK fails once the service is gone").toBe(
        1,
      );
    } finally {
      await fake.close();
      await api.close();
    }
  });

  it("has a systemd unit whose header steps set up a fresh host, run in a temporary root: the env file's directory is made first, both readable by the service's group only", async () => {
    const unit = readFileSync(join(deploy, "sds-sync.service"), "utf8");
    const steps = [...unit.matchAll(/^# {3}sudo (.+)$/gm)].map((match) => match[1] ?? "");
    expect(steps.length).toBeGreaterThanOrEqual(5);
    // A fresh host: /etc/systemd/system and /opt exist, /etc/sds-sync does not.
    const host = join(directory, "fresh-host");
    mkdirSync(join(host, "etc", "systemd", "system"), { recursive: true });
    mkdirSync(join(host, "opt"), { recursive: true });
    // useradd and systemctl would change this machine: recorded instead. install's -o and -g name
    // the user the first step would have made: recorded, and the rest of install runs for real.
    const shims = join(directory, "shims");
    const calls = join(directory, "calls.log");
    mkdirSync(shims, { recursive: true });
    writeFileSync(join(shims, "useradd"), `#!/bin/sh\necho "useradd $*" >> '${calls}'\n`, { mode: 0o755 });
    writeFileSync(join(shims, "systemctl"), `#!/bin/sh\necho "systemctl $*" >> '${calls}'\n`, { mode: 0o755 });
    writeFileSync(
      join(shims, "install"),
      `#!/bin/bash\nkept=()\nwhile [ $# -gt 0 ]; do case "$1" in -o|-g) echo "install $1 $2 \${@: -1}" >> '${calls}'; shift 2;; *) kept+=("$1"); shift;; esac; done\nexec /usr/bin/install "\${kept[@]}"\n`,
      { mode: 0o755 },
    );
    for (const step of steps) {
      const command = step
        .replaceAll("sudo ", "")
        .replaceAll("/path/to/tarballs", join(directory, "tarballs"))
        .replaceAll(/(^|[\s=])\/(etc|opt|var)\//g, `$1${host}/$2/`);
      await run("bash", ["-euo", "pipefail", "-c", command], {
        cwd: root,
        env: { ...process.env, PATH: `${shims}:${process.env.PATH ?? ""}`, npm_config_update_notifier: "false" },
      }).catch((error: unknown) => {
        throw new Error(`the step "${step}" failed: ${(error as { stderr?: string }).stderr ?? String(error)}`);
      });
    }
    expect(statSync(join(host, "etc", "sds-sync")).mode & 0o777).toBe(0o750);
    expect(statSync(join(host, "etc", "sds-sync", "env")).mode & 0o777).toBe(0o640);
    const recorded = readFileSync(calls, "utf8");
    for (const target of [join(host, "etc", "sds-sync"), join(host, "etc", "sds-sync", "env")]) {
      expect(recorded).toContain(`install -o root ${target}\n`);
      expect(recorded).toContain(`install -g sds-sync ${target}\n`);
    }
    expect(recorded).toMatch(/^useradd --system .* sds-sync$/m);
    expect(recorded).toContain("systemctl enable --now sds-sync\n");
    expect(readFileSync(join(host, "etc", "systemd", "system", "sds-sync.service"), "utf8")).toBe(unit);
    expect(existsSync(join(host, "opt", "sds-sync", "node_modules", ".bin", "sds-sync"))).toBe(true);
    // Documentation= points at the runbook the package installs.
    const documentation = /^Documentation=file:(\/\S+)$/m.exec(unit)?.[1];
    expect(documentation).toBeDefined();
    expect(existsSync(join(host, documentation ?? "/missing")), `${documentation ?? ""} is not installed`).toBe(true);
  }, 420_000);

  it.skipIf(!systemdAnalyze)("has a systemd unit that systemd-analyze verifies against this install", async () => {
    const unit = readFileSync(join(deploy, "sds-sync.service"), "utf8");
    expect(unit).toContain("ExecStart=/opt/sds-sync/node_modules/.bin/sds-sync");
    const local = join(directory, "sds-sync.service");
    writeFileSync(local, unit.replace("ExecStart=/opt/sds-sync/node_modules/.bin/sds-sync", `ExecStart=${bin}`));
    const verified = await run(systemdAnalyze ?? "systemd-analyze", ["verify", local]);
    expect(verified.stderr).toBe("");
  });
});
