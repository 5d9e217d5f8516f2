import { z } from "zod";
import { DeviceName } from "./survey-query.ts";
import { LoopText, storableText } from "./loop-text.ts";

/*
 * The respondent's session (`/v1/sessions`, the return, profiles): every body of its routes.
 * `/openapi.json` is generated from them.
 */

/** One answer as the session routes take it: option codes (or numbers) as `/v1/match` takes them, or one value. */
const AnswerValue = z.union([
  z.array(z.union([storableText(200), z.number()])).max(1000),
  storableText(200),
  z.number(),
]);

/** `QualificationId` (as a string) → the answer. */
export const SessionAnswers = z.record(z.string().regex(/^\d{1,12}$/, "must be a QualificationId"), AnswerValue);
/** `QualificationId` (as a string) → the answer. */
export type SessionAnswers = z.infer<typeof SessionAnswers>;

/**
 * An absolute http(s) URL of the supplier's own page: no credentials, no fragment, no control
 * characters (a URL parser drops tabs and line breaks silently; a NUL no store keeps alike).
 */
const ReturnUrl = z
  .string()
  .max(2000)
  .refine((value) => {
    // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
    if (/[\u0000-\u001f\u007f]/.test(value)) return false;
    try {
      const url = new URL(value);
      return (
        (url.protocol === "http:" || url.protocol === "https:") &&
        url.username === "" &&
        url.password === "" &&
        !value.includes("#")
      );
    } catch {
      return false;
    }
  }, "must be an absolute http(s) URL without credentials, fragment or control characters");

/** A device fingerprint: the hash a page computes of the respondent's browser (opaque to sds-sync). */
const Fingerprint = storableText(200).min(8);

/**
 * Why the quality gate refused a respondent: a user agent known as a bot; too many starts from
 * one address or by one uid; a second open session of the uid; a device already seen for
 * another uid; an address in another country than the language's; a risk score past the limit.
 */
export const GateCode = z.enum([
  "bot",
  "velocity-ip",
  "velocity-uid",
  "concurrent",
  "duplicate-device",
  "geo",
  "score",
]);
/** Why the quality gate refused a respondent. */
export type GateCode = z.output<typeof GateCode>;

/** Body of `POST /v1/sessions`. */
export const SessionBody = z.strictObject({
  uid: LoopText,
  languageId: z.number().int(),
  device: DeviceName.optional(),
  answers: SessionAnswers.optional(),
  returnUrl: ReturnUrl.optional(),
  /** The respondent's IP address, as your back end saw it (the quality gate judges it). */
  ip: z.union([z.ipv4(), z.ipv6()]).optional(),
  /** The respondent's browser's User-Agent header. */
  userAgent: storableText(1000).optional(),
  /** The respondent's device fingerprint. */
  fingerprint: Fingerprint.optional(),
});
/** Body of `POST /v1/sessions`. */
export type SessionBody = z.input<typeof SessionBody>;

/** Body of `POST /v1/sessions/{id}/answers`. */
export const SessionAnswersBody = z.strictObject({
  answers: SessionAnswers,
  /** The respondent's device fingerprint, when the page computed it after the start. */
  fingerprint: Fingerprint.optional(),
});
/** Body of `POST /v1/sessions/{id}/answers`. */
export type SessionAnswersBody = z.input<typeof SessionAnswersBody>;

/** What a session does next. */
export const SessionStep = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("question"),
    qualificationId: z.int(),
    text: z.string(),
    type: z.enum(["single", "multi", "numeric", "text"]),
    options: z.array(z.object({ code: z.string(), text: z.string() })),
  }),
  z.object({ kind: z.literal("survey"), surveyId: z.int(), link: z.string(), token: z.string() }),
  z.object({
    kind: z.literal("done"),
    reason: z.enum(["completed", "no-survey", "attempts", "excluded", "ended", "expired"]),
    /** With `excluded` by the quality gate: the rule that refused the respondent. */
    gate: GateCode.optional(),
  }),
]);
/** What a session does next. */
export type SessionStep = z.output<typeof SessionStep>;

/** One survey a session offered. */
export const SessionAttempt = z.object({
  surveyId: z.int(),
  token: z.string(),
  issuedAt: z.string(),
  returned: z.enum(["complete", "terminate", "overquota", "security", "drop"]).optional(),
  returnedAt: z.string().optional(),
});
/** One survey a session offered. */
export type SessionAttempt = z.output<typeof SessionAttempt>;

/** What a session's step rested on (`GET /v1/sessions/{id}?explain=1`), given when the step was decided. */
export const SessionExplanation = z.object({
  expectedCents: z
    .number()
    .describe("Expected cents of the session as it stands (the best order of the attempts left)."),
  expectedMinutes: z.number().describe("Expected minutes of that order."),
  attemptsLeft: z.int(),
  questions: z
    .array(
      z.object({
        qualificationId: z.int(),
        gainCents: z.number().describe("Expected cents of the session with the answer, less without it."),
        costCents: z.number().describe("What the question's time is worth at the session's expected rate."),
        surveys: z.int().describe("Surveys still open to the respondent that need it."),
      }),
    )
    .readonly()
    .describe("The questions considered, best gain first (at most 10)."),
  surveys: z
    .array(
      z.object({
        surveyId: z.int(),
        cpiCents: z.number(),
        conversion: z.number().describe("Yield's conversion estimate."),
        loiMinutes: z.number(),
        expectedCents: z.number().describe("Conversion × Cpi × the chance the respondent stays for its Loi."),
      }),
    )
    .readonly()
    .describe("The surveys the order starts with (at most 10)."),
});
/** What a session's step rested on (`GET /v1/sessions/{id}?explain=1`), given when the step was decided. */
export type SessionExplanation = z.output<typeof SessionExplanation>;

/** A respondent's session. */
export const Session = z.object({
  id: z.string().describe("At least 128 random bits, URL-safe."),
  uid: z.string(),
  languageId: z.int(),
  state: z.enum(["open", "done"]),
  questionsAsked: z.int().describe("Questions answered in this session."),
  attempts: z.array(SessionAttempt),
  next: SessionStep,
  explanation: SessionExplanation.optional().describe(
    "With ?explain=1, when this request decided the step: the questions considered with their expected gain, the top surveys with their estimates.",
  ),
});
/** A respondent's session. */
export type Session = z.output<typeof Session>;

/** `GET /v1/respondents/{uid}/profile`. */
export const Profile = z.object({
  uid: z.string(),
  answers: z.array(
    z.object({
      qualificationId: z.int(),
      languageId: z.int(),
      answers: z.array(z.string()),
      source: z.enum(["session", "api", "import"]),
      answeredAt: z.string(),
    }),
  ),
  risk: z
    .object({
      security: z.int().describe("Entries whose outcome or return is a security terminate."),
      reversals: z.int().describe("Completes taken back."),
      speeders: z.int().describe("Completes recorded faster than SYNC_SPEEDER_FRACTION × the survey's Loi."),
      score: z
        .number()
        .describe("3 × security + 2 × reversals + 1 × speeders: what SYNC_RESPONDENT_MAX_RISK is compared with."),
    })
    .optional()
    .describe("The respondent's risk, as the quality gate reads it."),
});
/** `GET /v1/respondents/{uid}/profile`. */
export type Profile = z.output<typeof Profile>;

/** `DELETE /v1/respondents/{uid}/profile`. */
export const ProfileErased = z.object({ uid: z.string(), erased: z.int() });
/** `DELETE /v1/respondents/{uid}/profile`. */
export type ProfileErased = z.output<typeof ProfileErased>;
