import { spawnSync } from "node:child_process";
import { it } from "vitest";

/** Whether `shell` can be run here. */
export function hasShell(shell: string): boolean {
  return spawnSync(shell, ["-c", "exit 0"], { stdio: "ignore" }).status === 0;
}

/**
 * `it` for a test that runs `shell`. Where the shell is missing, the test is skipped with the
 * reason in its name, except under CI (`CI=true`), where it runs and fails loudly:
 * `scripts/install-system-tools.sh` (run by `scripts/check.sh`) installs it there.
 */
export function itWithShell(shell: string, name: string, test: () => Promise<void> | void): void {
  if (hasShell(shell)) {
    it(name, test);
  } else if (process.env.CI === "true") {
    it(name, () => {
      throw new Error(
        `${shell} is not installed, and CI must run this test: run scripts/install-system-tools.sh as root`,
      );
    });
  } else {
    it.skip(`${name} [skipped: ${shell} is not installed; run scripts/install-system-tools.sh as root]`, test);
  }
}
