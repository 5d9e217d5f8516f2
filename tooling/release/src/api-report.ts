/*
 * API reports: one committed file per public library (`<package>/etc/<name>.api.md`), read from
 * its built, rolled-up `dist/index.d.ts`.
 *
 *   pnpm api:update   build the libraries, then rewrite every report
 *   pnpm api:check    (run by scripts/check.sh after the build) fail when
 *                     - a report differs from the build: run `pnpm api:update`, review, commit;
 *                     - a report differs from the last release's report (the report as of the
 *                       commit that set the package's current version) and the pending
 *                       changesets do not bump the package enough (`requiredBump`: from 1.0.0
 *                       a removal or change needs a major; below it, a minor; an addition a minor).
 *
 * Every public package of the workspace that has `types` is covered, with no list to edit.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { readChangesets } from "@changesets/read";
import { extractApiSurface, type ApiSurface } from "./api/extract.ts";
import { diffSurfaces, parseReport, renderReport } from "./api/report.ts";
import { bumpRank, requiredBump, type Bump } from "./api/required-bump.ts";
import { listPublicPackages, readManifest, repoRoot, type PublicPackage } from "./workspace.ts";

/** Where a package's report lives, relative to its directory. */
export function reportPathOf(pkg: PublicPackage): string {
  return `etc/${pkg.name.split("/").at(-1) ?? pkg.name}.api.md`;
}

function builtSurface(pkg: PublicPackage): ApiSurface {
  const types = readManifest(pkg.dir)["types"];
  const dts = resolve(pkg.dir, typeof types === "string" ? types : "dist/index.d.ts");
  if (!existsSync(dts)) {
    throw new Error(`${pkg.name}: ${dts} does not exist. Build first: pnpm exec turbo run build --filter=${pkg.name}`);
  }
  return extractApiSurface(dts);
}

function git(args: readonly string[]): string | undefined {
  try {
    return execFileSync("git", args, { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

/**
 * The report of the package's last release: the committed report as of the newest commit that
 * changed the `version` line of its package.json (`changeset version` does that). An empty
 * surface when the package has no release yet or had no report then; `undefined` when git
 * history is not available.
 */
function releasedSurface(pkg: PublicPackage): { surface: ApiSurface; label: string; version: string } | undefined {
  if (git(["rev-parse", "--is-inside-work-tree"]) !== "true") return undefined;
  const commit = git(["log", "-1", "--format=%H", "-G", '"version": "', "--", `${pkg.relativeDir}/package.json`]);
  const empty: ApiSurface = { imports: [], exports: [], declarations: new Map() };
  if (!commit) return { surface: empty, label: "no release yet", version: pkg.version };
  const text = pkg.version === "0.0.0" ? undefined : git(["show", `${commit}:${pkg.relativeDir}/${reportPathOf(pkg)}`]);
  if (text === undefined)
    return {
      surface: empty,
      label: pkg.version === "0.0.0" ? "no release yet" : `${pkg.version} (no report then)`,
      version: pkg.version,
    };
  return { surface: parseReport(text), label: pkg.version, version: pkg.version };
}

async function pendingBumps(): Promise<Map<string, Bump>> {
  const bumps = new Map<string, Bump>();
  for (const changeset of await readChangesets(repoRoot)) {
    for (const release of changeset.releases) {
      const type: Bump = release.type;
      const current = bumps.get(release.name) ?? "none";
      if (bumpRank[type] > bumpRank[current]) bumps.set(release.name, type);
    }
  }
  return bumps;
}

/** The package's published `./internal/*` subpaths: internal mechanisms its sibling packages import, not public API. */
function internalSubpathsOf(pkg: PublicPackage): string[] {
  const manifest = readManifest(pkg.dir);
  const publishConfig = manifest["publishConfig"] as { exports?: Record<string, unknown> } | undefined;
  const exports = publishConfig?.exports ?? (manifest["exports"] as Record<string, unknown> | undefined) ?? {};
  return Object.keys(exports).filter((subpath) => subpath.startsWith("./internal/"));
}

function update(packages: readonly PublicPackage[]): void {
  for (const pkg of packages) {
    const path = resolve(pkg.dir, reportPathOf(pkg));
    const next = renderReport(pkg.name, builtSurface(pkg), internalSubpathsOf(pkg));
    const previous = existsSync(path) ? readFileSync(path, "utf8") : undefined;
    if (previous === next) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, next);
    console.log(`api: wrote ${pkg.relativeDir}/${reportPathOf(pkg)}`);
  }
}

async function check(packages: readonly PublicPackage[]): Promise<boolean> {
  const failures: string[] = [];
  const bumps = await pendingBumps();
  for (const pkg of packages) {
    const reportPath = `${pkg.relativeDir}/${reportPathOf(pkg)}`;
    const built = builtSurface(pkg);
    const absolute = resolve(repoRoot, reportPath);
    if (!existsSync(absolute)) {
      failures.push(
        `${pkg.name}: no API report at ${reportPath}.\n  Run \`pnpm api:update\`, review the new file and commit it.`,
      );
      continue;
    }
    if (readFileSync(absolute, "utf8") !== renderReport(pkg.name, built, internalSubpathsOf(pkg))) {
      failures.push(
        `${pkg.name}: the public API in dist/index.d.ts no longer matches ${reportPath}.\n` +
          "  Run `pnpm api:update`, review the diff of the report (is every change intended?) and commit it.",
      );
    }
    const released = releasedSurface(pkg);
    if (released === undefined) {
      console.warn(`api: ${pkg.name}: no git history here, so the surface is not compared with the last release`);
      continue;
    }
    const diff = diffSurfaces(released.surface, built);
    const needed = requiredBump(diff, released.version);
    const pending = bumps.get(pkg.name) ?? "none";
    if (bumpRank[pending] < bumpRank[needed]) {
      const reasons = [...diff.breaking, ...diff.additions];
      const shown = reasons.slice(0, 8).map((reason) => `    - ${reason}`);
      if (reasons.length > shown.length) shown.push(`    - … and ${reasons.length - shown.length} more`);
      failures.push(
        `${pkg.name}: the public API changed since ${released.label} (${diff.breaking.length > 0 ? "removals or changes" : "additions only"}), ` +
          `which needs a ${needed} release, but the pending changesets give it ${pending === "none" ? "none" : `only a ${pending}`}:\n` +
          `${shown.join("\n")}\n` +
          `  If the change is intended, add a changeset: pnpm changeset --${needed} ${pkg.name} -m "<what changed, for the changelog>"\n` +
          "  (or raise the bump of an existing one in .changeset/). If it is not, restore the previous API.",
      );
    }
  }
  for (const failure of failures) console.error(failure);
  if (failures.length === 0)
    console.log(`api: ${packages.length} API reports match the build and the pending changesets`);
  return failures.length === 0;
}

async function main(argv: readonly string[]): Promise<number> {
  const packages = listPublicPackages().filter((pkg) => pkg.hasTypes);
  if (argv.includes("--update")) {
    update(packages);
    return 0;
  }
  if (argv.includes("--check")) return (await check(packages)) ? 0 : 1;
  console.error("usage: node tooling/release/src/api-report.ts --update | --check");
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
