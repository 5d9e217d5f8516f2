import type { SessionStep } from "@sds/sync-client";

/*
 * The respondent page's interface strings in the four languages it speaks. Question texts are
 * not here: they come from the question catalogue in the session's language.
 */

/** A locale of the page. */
export type PageLocale = "en" | "de" | "fr" | "es";
/** Every locale, English (the fallback) first. */
export const pageLocales: readonly PageLocale[] = ["en", "de", "fr", "es"];

type DoneReason = Extract<SessionStep, { kind: "done" }>["reason"];

/** One locale's strings. */
export interface PageStrings {
  readonly questionTitle: string;
  readonly next: string;
  readonly choose: string;
  readonly chooseAny: string;
  readonly numberLabel: string;
  readonly textLabel: string;
  readonly invalid: string;
  readonly surveyTitle: string;
  readonly surveyReady: string;
  readonly surveyMinutes: (minutes: number) => string;
  readonly startSurvey: string;
  readonly lastReturned: string;
  readonly doneTitle: string;
  readonly done: Readonly<Record<DoneReason, string>>;
  readonly back: string;
  readonly close: string;
  readonly refusedTitle: string;
  readonly startRefused: Readonly<Record<"forged" | "expired" | "used" | "off" | "unavailable", string>>;
  readonly notFound: string;
}

const en: PageStrings = {
  questionTitle: "A question",
  next: "Next",
  choose: "Choose one answer.",
  chooseAny: "Choose every answer that applies.",
  numberLabel: "Your answer (a number)",
  textLabel: "Your answer",
  invalid: "Please give an answer that fits the question.",
  surveyTitle: "A survey for you",
  surveyReady: "A survey is ready for you.",
  surveyMinutes: (minutes) => `It takes about ${minutes} minute${minutes === 1 ? "" : "s"}.`,
  startSurvey: "Start the survey",
  lastReturned: "Thank you for taking part in the last survey.",
  doneTitle: "Thank you",
  done: {
    completed: "You completed a survey. Thank you for your time.",
    "no-survey": "There is no survey for you right now. Please try again later.",
    attempts: "You have tried all the surveys we can offer you for now.",
    excluded: "We cannot offer you more surveys at this time.",
    ended: "This session has ended.",
    expired: "This session has expired.",
  },
  back: "Continue",
  close: "You may close this page.",
  refusedTitle: "This link cannot be used",
  startRefused: {
    forged: "This link is not valid. Please use the link you were given, unchanged.",
    expired: "This link has expired. Please ask for a new one.",
    used: "This link was already used for a session that has ended.",
    off: "The respondent page is turned off on this service.",
    unavailable: "We cannot start a session now. Please try again later.",
  },
  notFound: "This session does not exist or is no longer available.",
};

const de: PageStrings = {
  questionTitle: "Eine Frage",
  next: "Weiter",
  choose: "Wählen Sie eine Antwort.",
  chooseAny: "Wählen Sie alle zutreffenden Antworten.",
  numberLabel: "Ihre Antwort (eine Zahl)",
  textLabel: "Ihre Antwort",
  invalid: "Bitte geben Sie eine zur Frage passende Antwort.",
  surveyTitle: "Eine Umfrage für Sie",
  surveyReady: "Eine Umfrage ist für Sie bereit.",
  surveyMinutes: (minutes) => `Sie dauert etwa ${minutes} Minute${minutes === 1 ? "" : "n"}.`,
  startSurvey: "Umfrage starten",
  lastReturned: "Danke für Ihre Teilnahme an der letzten Umfrage.",
  doneTitle: "Vielen Dank",
  done: {
    completed: "Sie haben eine Umfrage abgeschlossen. Danke für Ihre Zeit.",
    "no-survey": "Gerade gibt es keine Umfrage für Sie. Bitte versuchen Sie es später noch einmal.",
    attempts: "Sie haben alle Umfragen versucht, die wir Ihnen derzeit anbieten können.",
    excluded: "Wir können Ihnen derzeit keine weiteren Umfragen anbieten.",
    ended: "Diese Sitzung ist beendet.",
    expired: "Diese Sitzung ist abgelaufen.",
  },
  back: "Weiter",
  close: "Sie können diese Seite schließen.",
  refusedTitle: "Dieser Link kann nicht verwendet werden",
  startRefused: {
    forged: "Dieser Link ist ungültig. Bitte verwenden Sie den Link, den Sie erhalten haben, unverändert.",
    expired: "Dieser Link ist abgelaufen. Bitte fordern Sie einen neuen an.",
    used: "Dieser Link wurde bereits für eine beendete Sitzung verwendet.",
    off: "Die Teilnehmerseite ist bei diesem Dienst ausgeschaltet.",
    unavailable: "Wir können gerade keine Sitzung starten. Bitte versuchen Sie es später noch einmal.",
  },
  notFound: "Diese Sitzung gibt es nicht oder nicht mehr.",
};

const fr: PageStrings = {
  questionTitle: "Une question",
  next: "Suivant",
  choose: "Choisissez une réponse.",
  chooseAny: "Choisissez toutes les réponses qui s’appliquent.",
  numberLabel: "Votre réponse (un nombre)",
  textLabel: "Votre réponse",
  invalid: "Veuillez donner une réponse adaptée à la question.",
  surveyTitle: "Une enquête pour vous",
  surveyReady: "Une enquête vous attend.",
  surveyMinutes: (minutes) => `Elle dure environ ${minutes} minute${minutes === 1 ? "" : "s"}.`,
  startSurvey: "Commencer l’enquête",
  lastReturned: "Merci d’avoir participé à la dernière enquête.",
  doneTitle: "Merci",
  done: {
    completed: "Vous avez terminé une enquête. Merci pour votre temps.",
    "no-survey": "Il n’y a pas d’enquête pour vous en ce moment. Veuillez réessayer plus tard.",
    attempts: "Vous avez essayé toutes les enquêtes que nous pouvons vous proposer pour le moment.",
    excluded: "Nous ne pouvons pas vous proposer d’autres enquêtes pour le moment.",
    ended: "Cette session est terminée.",
    expired: "Cette session a expiré.",
  },
  back: "Continuer",
  close: "Vous pouvez fermer cette page.",
  refusedTitle: "Ce lien ne peut pas être utilisé",
  startRefused: {
    forged: "Ce lien n’est pas valide. Veuillez utiliser le lien reçu, sans le modifier.",
    expired: "Ce lien a expiré. Veuillez en demander un nouveau.",
    used: "Ce lien a déjà servi pour une session terminée.",
    off: "La page des répondants est désactivée sur ce service.",
    unavailable: "Nous ne pouvons pas commencer de session maintenant. Veuillez réessayer plus tard.",
  },
  notFound: "Cette session n’existe pas ou n’est plus disponible.",
};

const es: PageStrings = {
  questionTitle: "Una pregunta",
  next: "Siguiente",
  choose: "Elija una respuesta.",
  chooseAny: "Elija todas las respuestas que correspondan.",
  numberLabel: "Su respuesta (un número)",
  textLabel: "Su respuesta",
  invalid: "Por favor, dé una respuesta que corresponda a la pregunta.",
  surveyTitle: "Una encuesta para usted",
  surveyReady: "Hay una encuesta lista para usted.",
  surveyMinutes: (minutes) => `Dura unos ${minutes} minuto${minutes === 1 ? "" : "s"}.`,
  startSurvey: "Empezar la encuesta",
  lastReturned: "Gracias por participar en la última encuesta.",
  doneTitle: "Gracias",
  done: {
    completed: "Ha completado una encuesta. Gracias por su tiempo.",
    "no-survey": "Ahora no hay ninguna encuesta para usted. Vuelva a intentarlo más tarde.",
    attempts: "Ha probado todas las encuestas que podemos ofrecerle por ahora.",
    excluded: "No podemos ofrecerle más encuestas en este momento.",
    ended: "Esta sesión ha terminado.",
    expired: "Esta sesión ha caducado.",
  },
  back: "Continuar",
  close: "Puede cerrar esta página.",
  refusedTitle: "Este enlace no se puede usar",
  startRefused: {
    forged: "Este enlace no es válido. Use el enlace que recibió, sin cambios.",
    expired: "Este enlace ha caducado. Pida uno nuevo.",
    used: "Este enlace ya se usó para una sesión que ha terminado.",
    off: "La página de participantes está desactivada en este servicio.",
    unavailable: "No podemos empezar una sesión ahora. Vuelva a intentarlo más tarde.",
  },
  notFound: "Esta sesión no existe o ya no está disponible.",
};

/** The strings of each locale. */
export const pageStrings: Readonly<Record<PageLocale, PageStrings>> = { en, de, fr, es };

/**
 * The page's locale for a language of the Languages collection, by its name's first word
 * (`"German - Germany"` → `de`, `"Français - Canada"` → `fr`); English for every other language
 * and for a name the collection does not give.
 */
export function localeOfLanguageName(name: string | undefined): PageLocale {
  const word =
    (name ?? "")
      .trim()
      .split(/[\s\-(,]/)[0]
      ?.toLowerCase() ?? "";
  if (word === "german" || word === "deutsch") return "de";
  if (word === "french" || word === "français" || word === "francais") return "fr";
  if (word === "spanish" || word === "español" || word === "espanol") return "es";
  return "en";
}
