import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * Finds a program from a Debian package, installing the package with apt-get when it is missing
 * and the check runs under CI (as root; under CI without root it throws: CI must not skip).
 * Outside CI a missing program resolves to undefined after a message saying what is skipped and
 * how to install it; the caller skips its tests.
 *
 * @example
 * ```ts
 * const promtool = ensureSystemTool("promtool", "prometheus", "the alert rule tests");
 * describe.skipIf(!promtool)("alert rules", () => { … });
 * ```
 */
export function ensureSystemTool(program: string, debianPackage: string, what: string): string | undefined {
  const found = locate(program);
  if (found) return found;
  if (process.env.CI) {
    if (process.getuid?.() !== 0)
      throw new Error(
        `${program} is missing and CI is set, but apt-get needs root: install ${debianPackage} in the CI image`,
      );
    execFileSync("apt-get", ["update"], { stdio: "ignore" });
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", debianPackage], {
      stdio: "ignore",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    const installed = locate(program);
    if (!installed) throw new Error(`apt-get installed ${debianPackage} but ${program} is still not on the PATH`);
    return installed;
  }
  console.warn(
    `SKIPPING ${what}: ${program} is missing and, outside CI, nothing is installed. Install it with: apt-get install -y ${debianPackage}`,
  );
  return undefined;
}

function locate(program: string): string | undefined {
  for (const directory of (process.env.PATH ?? "").split(":").concat(["/usr/bin", "/usr/sbin", "/bin"])) {
    const candidate = `${directory}/${program}`;
    if (directory !== "" && existsSync(candidate)) return candidate;
  }
  return undefined;
}
