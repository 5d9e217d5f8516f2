import { SettingProblem } from "../common/setting-parsers.ts";

/** Subjects in NATS wildcard form (`*` one token, `>` the rest), as tokens. */
export type SubjectFilter = readonly (readonly string[])[];

const TOKEN = /^(\*|>|[A-Za-z0-9_-]+)$/;

/** Parses NATS wildcard subjects such as `outcomes.>` or `changes.closed`; `owner` names the setting's part in problems. */
export function parseSubjectFilter(subjects: readonly string[], owner: string): SubjectFilter {
  return subjects.map((subject) => {
    const tokens = subject.trim().split(".");
    const wildcardInside = tokens.slice(0, -1).includes(">");
    if (tokens.some((token) => !TOKEN.test(token)) || wildcardInside)
      throw new SettingProblem(
        `${owner}: ${JSON.stringify(subject)} is not a subject filter such as outcomes.> or changes.closed (without the prefix)`,
      );
    return tokens;
  });
}

/**
 * Whether a subject (without the prefix, such as `outcomes.complete`) matches a filter, the way
 * NATS matches: `*` is exactly one token, `>` one or more trailing tokens. No filter matches all.
 */
export function subjectMatches(filter: SubjectFilter | undefined, subject: string): boolean {
  if (filter === undefined) return true;
  const tokens = subject.split(".");
  return filter.some((pattern) => {
    for (const [index, token] of pattern.entries()) {
      if (token === ">") return tokens.length > index;
      if (index >= tokens.length || (token !== "*" && token !== tokens[index])) return false;
    }
    return pattern.length === tokens.length;
  });
}
