import type { SurfaceDiff } from "./report.ts";

/** A changeset's bump, or none pending. */
export type Bump = "none" | "patch" | "minor" | "major";

export const bumpRank: Readonly<Record<Bump, number>> = { none: 0, patch: 1, minor: 2, major: 3 };

/**
 * The smallest release a surface change needs, by semver and npm's caret ranges. From 1.0.0 a
 * removal or change needs a major and an addition a minor. Below 1.0.0 the minor is the breaking
 * line (`^0.1.0` means `>=0.1.0 <0.2.0`, so a consumer on a caret range never receives 0.2.0
 * unasked): a removal or change needs a minor, and so does an addition, so that what consumers
 * receive through their range within 0.y stays patch-only. Going to 1.0.0 is a decision about
 * stability, taken with a `major` changeset, never forced by a refactor.
 */
export function requiredBump(diff: SurfaceDiff, releasedVersion: string): Bump {
  const beforeOne = releasedVersion.startsWith("0.");
  if (diff.breaking.length > 0) return beforeOne ? "minor" : "major";
  return diff.additions.length > 0 ? "minor" : "none";
}
