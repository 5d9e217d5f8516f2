import packageJson from "../../package.json" with { type: "json" };

/** The version of sds-sync (bundled from package.json at build time). */
export const VERSION: string = packageJson.version;

/** The oldest Node.js sds-sync runs on: node:sqlite without a flag, and what @sds/client needs. */
export const MIN_NODE_VERSION = "22.13.0";

/** Whether a Node.js version (`process.versions.node`) is at least {@link MIN_NODE_VERSION}. */
export function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [minMajor = 0, minMinor = 0] = MIN_NODE_VERSION.split(".").map(Number);
  return major > minMajor || (major === minMajor && minor >= minMinor);
}
