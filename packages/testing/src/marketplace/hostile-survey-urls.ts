import type { SurveyInit } from "../fake/types.ts";

/** The kinds of hostile `SurveyUrl` in {@link hostileSurveyUrls}. */
export type HostileSurveyUrlKind =
  | "rid-placeholder"
  | "unknown-placeholder"
  | "unknown-vq-placeholder"
  | "javascript"
  | "data"
  | "file"
  | "userinfo"
  | "userinfo-host-spoof";

/**
 * `SurveyUrl`s an upstream may publish that an entry-link builder must not send a respondent
 * to as they are. Each parses as a URL (so the `Survey` schema accepts it); `{id}` stands for
 * the `SurveyId`.
 *
 * - `rid-placeholder`: only `[%RID%]`, the other placeholder syntax, which `[#vq_tid#]` filling leaves in place.
 * - `unknown-placeholder`: `[#vq_tid#]` and a `[%FOO%]` nobody fills.
 * - `unknown-vq-placeholder`: `[#vq_tid#]` and a `[#vq_unknown#]` the builder cannot fill (`UnfilledPlaceholderError`).
 * - `javascript`: `javascript:alert(1)`, with a token placeholder so that it looks fillable.
 * - `data`: a `data:text/html` page with a script.
 * - `file`: a `file:` URL.
 * - `userinfo`: `http://user@survey.example.com/…`, credentials in the URL.
 * - `userinfo-host-spoof`: `https://survey.example.com@attacker.example/…`, whose host is attacker.example.
 */
export const hostileSurveyUrls: Readonly<Record<HostileSurveyUrlKind, string>> = {
  "rid-placeholder": "https://survey.example.com/s/{id}?rid=[%RID%]",
  "unknown-placeholder": "https://survey.example.com/s/{id}?tid=[#vq_tid#]&x=[%FOO%]",
  "unknown-vq-placeholder": "https://survey.example.com/s/{id}?tid=[#vq_tid#]&y=[#vq_unknown#]",
  javascript: "javascript:alert(1)//?tid=[#vq_tid#]",
  data: "data:text/html,<script>alert(document.cookie)</script>?tid=[#vq_tid#]",
  file: "file:///etc/passwd?tid=[#vq_tid#]",
  userinfo: "http://user@survey.example.com/s/{id}?tid=[#vq_tid#]",
  "userinfo-host-spoof": "https://survey.example.com@attacker.example/s/{id}?tid=[#vq_tid#]",
};

/** Options of {@link hostileSurveyInits}. */
export interface HostileSurveyOptions {
  /** `SurveyId` of the first survey; the others follow in the order of {@link hostileSurveyUrls}. @default 900001 */
  readonly firstSurveyId?: number;
  /** Only these kinds. @default every kind */
  readonly kinds?: readonly HostileSurveyUrlKind[];
}

/**
 * One live survey per hostile `SurveyUrl` (the rest of each survey generated as usual), named
 * `hostile: <kind>`: pass them to the fake as a supplier's `surveys`, or one by one to
 * `api.addSurvey`, and check that the system under test refuses to build entry links for them
 * (or builds none that leave the survey's host).
 *
 * @example
 * ```ts
 * const api = createFakeSupplierApi({ suppliers: [{ supplierId: 1001, apiKey: "k", surveys: hostileSurveyInits() }] });
 * ```
 */
export function hostileSurveyInits(options: HostileSurveyOptions = {}): SurveyInit[] {
  const first = options.firstSurveyId ?? 900_001;
  if (!Number.isSafeInteger(first) || first < 1)
    throw new RangeError(`firstSurveyId must be a positive integer, got ${String(first)}`);
  const kinds = options.kinds ?? (Object.keys(hostileSurveyUrls) as HostileSurveyUrlKind[]);
  return kinds.map((kind, index) => {
    const surveyId = first + index;
    return {
      survey: {
        SurveyId: surveyId,
        Name: `hostile: ${kind}`,
        SurveyUrl: hostileSurveyUrls[kind].replace("{id}", String(surveyId)),
      },
    };
  });
}
