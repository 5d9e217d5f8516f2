/*
 * The package fields a registry page shows (`repository`, `homepage`, `bugs`) and the LICENSE
 * file have ONE source: the root package.json and the root LICENSE. This script carries them
 * into every public package; nobody edits them per package.
 *
 *   node tooling/release/src/package-metadata.ts            write them (pnpm release:metadata)
 *   node tooling/release/src/package-metadata.ts --check    fail on drift (run by scripts/check.sh)
 *   node tooling/release/src/package-metadata.ts --require-public-home
 *                                                           also fail while the root has no
 *                                                           repository/homepage/bugs (the release
 *                                                           workflow runs this before publishing)
 *
 * The project's public home is not decided yet (docs/RELEASING.md), so the root carries none of
 * the three fields today and neither do the packages.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { relativeLinksIn } from "./readme-links.ts";
import { listPublicPackages, readManifest, repoRoot, type Manifest, type PublicPackage } from "./workspace.ts";

const homeFields = ["repository", "homepage", "bugs"] as const;
/** Files every tarball carries besides its build. */
const requiredFiles = ["CHANGELOG.md", "LICENSE"] as const;

interface RootHome {
  readonly repositoryUrl?: string;
  readonly homepage?: string;
  readonly bugs?: unknown;
}

function readRootHome(): RootHome {
  const root = readManifest(repoRoot);
  const repository = root["repository"];
  const repositoryUrl = typeof repository === "string" ? repository : (repository as { url?: string } | undefined)?.url;
  return {
    ...(repositoryUrl === undefined ? {} : { repositoryUrl }),
    ...(typeof root["homepage"] === "string" ? { homepage: root["homepage"] } : {}),
    ...(root["bugs"] === undefined ? {} : { bugs: root["bugs"] }),
  };
}

/** The three fields as one package must carry them: derived from the root, `directory` its own. */
function expectedHomeFields(home: RootHome, pkg: PublicPackage): Manifest {
  return {
    ...(home.repositoryUrl === undefined
      ? {}
      : { repository: { type: "git", url: home.repositoryUrl, directory: pkg.relativeDir } }),
    ...(home.homepage === undefined ? {} : { homepage: home.homepage }),
    ...(home.bugs === undefined ? {} : { bugs: home.bugs }),
  };
}

/** The manifest with the home fields replaced, placed right after `license`. */
function withHomeFields(manifest: Manifest, fields: Manifest): Manifest {
  const result: Manifest = {};
  for (const [key, value] of Object.entries(manifest)) {
    if ((homeFields as readonly string[]).includes(key)) continue;
    result[key] = value;
    if (key === "license") Object.assign(result, fields);
  }
  if (!("license" in manifest)) Object.assign(result, fields);
  return result;
}

function problemsOf(pkg: PublicPackage, home: RootHome, rootLicense: string): string[] {
  const manifest = readManifest(pkg.dir);
  const problems: string[] = [];
  const expected = expectedHomeFields(home, pkg);
  for (const field of homeFields) {
    if (JSON.stringify(manifest[field]) !== JSON.stringify(expected[field])) {
      problems.push(`${field} differs from what the root package.json gives`);
    }
  }
  if (manifest["license"] !== "MIT") problems.push(`license is ${JSON.stringify(manifest["license"])}, not "MIT"`);
  let license = "";
  try {
    license = readFileSync(resolve(pkg.dir, "LICENSE"), "utf8");
  } catch {
    problems.push("has no LICENSE file");
  }
  if (license !== "" && license !== rootLicense) problems.push("LICENSE differs from the root LICENSE");
  const files = Array.isArray(manifest["files"]) ? (manifest["files"] as unknown[]) : [];
  for (const file of requiredFiles) {
    if (!files.includes(file)) problems.push(`"files" lacks ${file} (edit package.json by hand)`);
  }
  for (const link of relativeReadmeLinks(pkg)) {
    problems.push(
      `README.md links to ${JSON.stringify(link)}, which breaks on the registry's page: link absolutely (another package: https://www.npmjs.com/package/<name>; a file the package ships: https://unpkg.com/<name>/<path>)`,
    );
  }
  return problems;
}

function relativeReadmeLinks(pkg: PublicPackage): string[] {
  try {
    return relativeLinksIn(readFileSync(resolve(pkg.dir, "README.md"), "utf8"));
  } catch {
    return [];
  }
}

function write(pkg: PublicPackage, home: RootHome, rootLicense: string): boolean {
  const path = resolve(pkg.dir, "package.json");
  const before = readFileSync(path, "utf8");
  const after = `${JSON.stringify(withHomeFields(readManifest(pkg.dir), expectedHomeFields(home, pkg)), null, 2)}\n`;
  let changed = false;
  if (JSON.stringify(JSON.parse(before)) !== JSON.stringify(JSON.parse(after))) {
    writeFileSync(path, after);
    changed = true;
  }
  const licensePath = resolve(pkg.dir, "LICENSE");
  let license = "";
  try {
    license = readFileSync(licensePath, "utf8");
  } catch {
    // written below
  }
  if (license !== rootLicense) {
    writeFileSync(licensePath, rootLicense);
    changed = true;
  }
  return changed;
}

function main(argv: readonly string[]): number {
  const home = readRootHome();
  const rootLicense = readFileSync(resolve(repoRoot, "LICENSE"), "utf8");
  const packages = listPublicPackages();

  if (argv.includes("--require-public-home")) {
    const missing = homeFields.filter(
      (field) => (field === "repository" ? home.repositoryUrl : home[field]) === undefined,
    );
    if (missing.length > 0) {
      console.error(
        `release: the root package.json has no ${missing.join(", ")}. The project's public home is not decided yet;\n` +
          "set these three fields in the root package.json (see docs/RELEASING.md), run `pnpm release:metadata`, commit, then release.",
      );
      return 1;
    }
  }

  if (argv.includes("--check") || argv.includes("--require-public-home")) {
    let failed = false;
    for (const pkg of packages) {
      for (const problem of problemsOf(pkg, home, rootLicense)) {
        console.error(`${pkg.name} (${pkg.relativeDir}): ${problem}`);
        failed = true;
      }
    }
    if (failed) console.error("Run `pnpm release:metadata` to carry the root's fields and LICENSE into every package.");
    else console.log(`package metadata: ${packages.length} public packages match the root package.json and LICENSE`);
    return failed ? 1 : 0;
  }

  for (const pkg of packages) {
    if (write(pkg, home, rootLicense)) console.log(`updated ${pkg.relativeDir}`);
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
