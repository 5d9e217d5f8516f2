import { operationIds, operations, type OperationId } from "@sds/schemas";

/** Why a path cannot replace an operation's path: see {@link operationPathProblem}. */
export interface OperationPathProblem {
  readonly code:
    | "unknown-operation"
    | "not-absolute"
    | "query-or-fragment"
    | "dot-segment"
    | "not-a-path-character"
    | "placeholders";
  /** One clause naming the operation, such as `the path of getSurveyStats must start with "/"`. */
  readonly message: string;
}

/** What a path may hold besides its `{placeholders}`: RFC 3986 path characters, which the URL parser keeps as they are. */
const pathCharacters = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;

/**
 * Why `path` cannot replace the path of the operation `operationId` (the client option `paths`),
 * or `undefined` when it can: the one rule of the project, used by `createClient()` and by
 * applications that read overrides from their own configuration (sds-sync's `SDS_OPERATION_PATHS`).
 *
 * A path must belong to a known operation, start with `/`, carry no query (`?`) or fragment (`#`),
 * no `.` or `..` segment (the URL parser would resolve them to another path), only path
 * characters, and exactly the `{placeholders}` of the operation's own path, each a whole segment
 * (as in `/survey-groups/{surveyId}`), so a request can be told apart by its path.
 *
 * @example
 * ```ts
 * operationPathProblem("getSurveyStats", "/stats/{surveyId}"); // undefined
 * operationPathProblem("getSurveyStats", "/stats");
 * // { code: "placeholders", message: "the path of getSurveyStats must contain {surveyId}, each a whole segment, as /survey-stats/{surveyId} does" }
 * ```
 */
export function operationPathProblem(operationId: string, path: string): OperationPathProblem | undefined {
  if (!Object.hasOwn(operations, operationId)) {
    return {
      code: "unknown-operation",
      message: `there is no operation ${JSON.stringify(operationId)}; known: ${operationIds.join(", ")}`,
    };
  }
  const operation = operations[operationId as OperationId];
  const of = `the path of ${operationId}`;
  if (!path.startsWith("/")) return { code: "not-absolute", message: `${of} must start with "/"` };
  if (/[?#]/.test(path))
    return { code: "query-or-fragment", message: `${of} must not carry a query (?) or a fragment (#)` };
  const segments = path.split("/").slice(1);
  if (segments.some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) {
    return {
      code: "dot-segment",
      message: `${of} must not contain "." or ".." segments (the URL parser would resolve them to another path)`,
    };
  }
  if (!pathCharacters.test(path.replace(/\{\w+\}/g, ""))) {
    return {
      code: "not-a-path-character",
      message: `${of} must hold only letters, digits, -._~!$&'()*+,;=:@%/ and its {placeholders}`,
    };
  }
  const placeholders = segments.flatMap((segment) => [...segment.matchAll(/\{(\w+)\}/g)].map((match) => match[1]));
  const wholeSegments = segments.every((segment) => !segment.includes("{") || /^\{\w+\}$/.test(segment));
  const expected = [...operation.pathParams].sort();
  if (!wholeSegments || [...placeholders].sort().join() !== expected.join()) {
    const wanted = expected.length === 0 ? "no placeholders" : expected.map((name) => `{${name}}`).join(" and ");
    const each = expected.length === 0 ? "" : ", each a whole segment";
    return { code: "placeholders", message: `${of} must contain ${wanted}${each}, as ${operation.path} does` };
  }
  return undefined;
}
