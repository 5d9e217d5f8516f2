import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const installScript = fileURLToPath(new URL("../../../scripts/install-system-tools.sh", import.meta.url));

function findPromtool(): string | undefined {
  const found = spawnSync("sh", ["-c", "command -v promtool"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/**
 * The path of `promtool` (Debian package `prometheus`). Under CI it is installed when missing
 * (scripts/install-system-tools.sh, as root); elsewhere a missing promtool skips the tests that
 * need it, with `reason` saying so.
 */
export function requirePromtool(): { readonly path: string | undefined; readonly reason: string } {
  let path = findPromtool();
  if (path === undefined && process.env.CI === "true") {
    spawnSync("bash", [installScript], { stdio: "inherit" });
    path = findPromtool();
    if (path === undefined)
      throw new Error(
        "promtool is missing and scripts/install-system-tools.sh could not install it (Debian package prometheus)",
      );
  }
  return {
    path,
    reason:
      path === undefined
        ? "promtool not found: apt-get install -y prometheus (or run with CI=true as root to install it)"
        : "",
  };
}

/** Runs `promtool check metrics` on an exposition; its status and what it said. */
export function checkMetrics(
  promtool: string,
  exposition: string,
): { readonly status: number | null; readonly output: string } {
  const result = spawnSync(promtool, ["check", "metrics"], { input: exposition, encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
