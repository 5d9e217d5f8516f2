import { describe, expect, it } from "vitest";
import {
  EntryLinkBody,
  enteredAtProblem,
  HistoryBody,
  loopTextProblem,
  MatchBody,
  MAX_HISTORY_BATCH,
  MAX_LOOP_TEXT,
  MAX_RECONCILE_BATCH,
  parseOutcomeKind,
  ReconcileBody,
  SessionAnswersBody,
  SessionBody,
} from "../src/index.ts";

/*
 * The rules sds-sync checks bodies with, as a tool that sends a file checks each line first:
 * one owner (this package) for the service, the client and the CLI.
 */

describe("the loop's rules", () => {
  it("says what a token or respondent id may not hold, in sds-sync's words", () => {
    expect(loopTextProblem("t-8f2c")).toBeUndefined();
    expect(loopTextProblem("x".repeat(MAX_LOOP_TEXT))).toBeUndefined();
    expect(loopTextProblem("😀")).toBeUndefined();
    expect(loopTextProblem("")).toBe("must not be empty");
    expect(loopTextProblem("x".repeat(MAX_LOOP_TEXT + 1))).toBe("must be at most 200 characters, got 201");
    expect(loopTextProblem("a\uD800b")).toBe("must be well-formed Unicode (it holds a lone surrogate)");
    expect(loopTextProblem("a\u0000b")).toBe("must not hold control characters (such as NUL)");
    expect(loopTextProblem("a\tb")).toBe("must not hold control characters (such as NUL)");
  });

  it("refuses a NUL in the text sds-sync keeps as given (answers, user agent, fingerprint), and keeps a line break", () => {
    const start = { uid: "u-1", languageId: 3 };
    expect(SessionBody.safeParse({ ...start, answers: { "77": "a\u0000b" } }).success).toBe(false);
    expect(SessionBody.safeParse({ ...start, answers: { "77": ["1", "\u0000"] } }).success).toBe(false);
    expect(SessionBody.safeParse({ ...start, userAgent: "Mozilla/5.0\u0000" }).success).toBe(false);
    expect(SessionBody.safeParse({ ...start, fingerprint: "fp-\u0000-0001" }).success).toBe(false);
    expect(SessionAnswersBody.safeParse({ answers: { "77": "\u0000" } }).success).toBe(false);
    expect(MatchBody.safeParse({ answers: { "77": ["\u0000"] } }).success).toBe(false);
    const reconciled = (reason: string) =>
      ReconcileBody.safeParse({ outcomes: [{ token: "t-1", outcome: "complete", reason }] });
    expect(reconciled("audit \u0000").success).toBe(false);
    expect(SessionBody.safeParse({ ...start, returnUrl: "https://panel.example/a\u0000b" }).success).toBe(false);
    expect(SessionBody.safeParse({ ...start, returnUrl: "https://panel.example/a\r\nb" }).success).toBe(false);
    expect(SessionBody.safeParse({ ...start, returnUrl: "https://panel.example/next?x=1" }).success).toBe(true);
    expect(SessionBody.safeParse({ ...start, answers: { "77": "line 1\nline 2" } }).success).toBe(true);
    expect(SessionBody.safeParse({ ...start, fingerprint: "fp-device-0001" }).success).toBe(true);
  });

  it("holds a reconciliation's reason to the rule of tokens: no control characters, at most 500 characters", () => {
    const reconciled = (reason: string) =>
      ReconcileBody.safeParse({ outcomes: [{ token: "t-1", outcome: "complete", reason }] });
    for (const reason of [
      "audit \u0000",
      "audit, line 2\n",
      "\u001b[2J",
      "qc\u0008\u0008ok",
      "tab\there",
      "r".repeat(501),
    ])
      expect(reconciled(reason).success, JSON.stringify(reason).slice(0, 20)).toBe(false);
    for (const reason of ["", "rejected in the quality review: speeder", "r".repeat(500), "contrôle qualité ✓"])
      expect(reconciled(reason).success, reason.slice(0, 20)).toBe(true);
  });

  it("takes a session's returnUrl only as the supplier's own http(s) page, and its ip only as an address", () => {
    const start = { uid: "u-1", languageId: 3 };
    const returnUrl = (url: string) => SessionBody.safeParse({ ...start, returnUrl: url }).success;
    for (const url of [
      "javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "file:///etc/passwd",
      "https://user:pass@panel.example/back",
      "https://panel.example/back#session",
      "https://panel.example:99999/back",
      "//panel.example/back",
      `https://panel.example/${"a".repeat(2000)}`,
    ])
      expect(returnUrl(url), url).toBe(false);
    expect(returnUrl("https://panel.example/back?x=1&y=%20")).toBe(true);
    const ip = (address: string) => SessionBody.safeParse({ ...start, ip: address }).success;
    for (const address of ["999.1.1.1", "1.2.3.4/24", "01.2.3.4", "fe80::1%eth0", "localhost", ""])
      expect(ip(address), address).toBe(false);
    expect(ip("::ffff:203.0.113.7")).toBe(true);
    expect(SessionBody.safeParse({ uid: "a\u0007b", languageId: 3 }).success).toBe(false);
    expect(SessionBody.safeParse({ ...start, userAgent: "x".repeat(1001) }).success).toBe(false);
  });

  it("takes an entry link without a respondent id as an empty one, and refuses an empty token", () => {
    expect(EntryLinkBody.parse({ surveyId: 7, token: "t-1" })).toEqual({ surveyId: 7, token: "t-1", uid: "" });
    expect(EntryLinkBody.safeParse({ surveyId: 7, token: "t-1", uid: "" }).success).toBe(true);
    const empty = EntryLinkBody.safeParse({ surveyId: 7, token: "" });
    expect(empty.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([[["token"], "must not be empty"]]);
  });

  it("holds a batch to 1,000 lines, for reconciliation and history import alike", () => {
    const lines = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ token: `t-${index}`, outcome: "complete" }));
    expect(ReconcileBody.safeParse({ outcomes: lines(MAX_RECONCILE_BATCH) }).success).toBe(true);
    expect(ReconcileBody.safeParse({ outcomes: lines(MAX_RECONCILE_BATCH + 1) }).success).toBe(false);
    const entries = (count: number) =>
      Array.from({ length: count }, (_, index) => ({
        uid: `r-${index}`,
        surveyId: 7,
        enteredAt: "2026-01-05T10:00:00Z",
      }));
    expect(HistoryBody.safeParse({ entries: entries(MAX_HISTORY_BATCH) }).success).toBe(true);
    expect(HistoryBody.safeParse({ entries: entries(MAX_HISTORY_BATCH + 1) }).success).toBe(false);
  });

  it("reads an outcome as a report spells it, and a history time as sds-sync takes it", () => {
    expect(parseOutcomeKind(" Complete ")).toBe("complete");
    expect(parseOutcomeKind("finished")).toBeUndefined();
    expect(enteredAtProblem("2026-01-05T12:00:00+02:00")).toBeUndefined();
    expect(enteredAtProblem("2026-02-30T10:00:00Z")).toMatch(/^must be an ISO 8601 time/);
    expect(enteredAtProblem("2026-01-05T10:00Z")).toMatch(/^must be an ISO 8601 time/);
  });
});
