import type { Session } from "@sds/sync-client";
import { describe, expect, it } from "vitest";
import { renderPage, renderStep } from "./page-render.ts";
import { localeOfLanguageName, pageLocales, pageStrings } from "./page-strings.ts";

const frame = { locale: "en", nonce: "bm9uY2U=" };
const session = (next: Session["next"]): Session => ({
  id: "abcdefghijklmnopqrstuvwx",
  uid: "r-1",
  languageId: 3,
  state: next.kind === "done" ? "done" : "open",
  questionsAsked: 0,
  attempts: [],
  next,
});
const strings = pageStrings.en;

describe("the respondent page's steps", () => {
  it("asks a single choice with labelled radio buttons and a multiple choice with checkboxes", () => {
    const single = renderStep(
      frame,
      session({
        kind: "question",
        qualificationId: 43,
        text: "Gender?",
        type: "single",
        options: [
          { code: "1", text: "Male" },
          { code: "2", text: "<Female>" },
        ],
      }),
      { strings },
    );
    expect(single.body).toContain('<fieldset aria-describedby="hint"><legend>Gender?</legend>');
    expect(single.body).toContain(
      '<input type="radio" id="o1" name="answer" value="2" required><label for="o1">&lt;Female&gt;</label>',
    );
    const multi = renderStep(
      frame,
      session({
        kind: "question",
        qualificationId: 113,
        text: "Ethnicity?",
        type: "multi",
        options: [{ code: "1", text: "White" }],
      }),
      { strings },
    );
    expect(multi.body).toContain(
      '<input type="checkbox" id="o0" name="answer" value="1"><label for="o0">White</label>',
    );
    expect(multi.body).toContain(strings.chooseAny);
  });

  it("asks a number with a number field and a text with a text field, each labelled by the question", () => {
    const numeric = renderStep(
      frame,
      session({ kind: "question", qualificationId: 42, text: "Age?", type: "numeric", options: [] }),
      { strings },
    );
    expect(numeric.body).toContain('<label class="question" for="answer">Age?</label>');
    expect(numeric.body).toContain('<input type="number" id="answer" name="answer"');
    const text = renderStep(
      frame,
      session({ kind: "question", qualificationId: 45, text: "ZIP?", type: "text", options: [] }),
      { strings },
    );
    expect(text.body).toContain('<input type="text" id="answer" name="answer"');
  });

  it("ends with a sentence for each reason, and a link onwards only when there is somewhere to go", () => {
    for (const reason of ["completed", "no-survey", "attempts", "excluded", "ended", "expired"] as const) {
      const done = renderStep(frame, session({ kind: "done", reason }), { strings });
      expect(done.body).toContain(strings.done[reason]);
      expect(done.body).toContain(strings.close);
    }
    const onward = renderStep(frame, session({ kind: "done", reason: "completed" }), {
      strings,
      returnUrl: "https://p.example/?a=1&b=2",
    });
    expect(onward.body).toContain('<a class="button" href="https://p.example/?a=1&amp;b=2">Continue</a>');
  });

  it("puts the style and the script under the answer's nonce, and loads nothing from elsewhere", () => {
    const page = renderPage({ ...frame, script: "/s/fingerprint.js" }, "T", "<p>x</p>");
    expect(page).toContain('<style nonce="bm9uY2U=">');
    expect(page).toContain('<script nonce="bm9uY2U=" src="/s/fingerprint.js" defer></script>');
    expect(page).not.toMatch(/https?:\/\//);
  });
});

describe("the page's languages", () => {
  it("has every string in every locale", () => {
    for (const locale of pageLocales)
      expect(Object.keys(pageStrings[locale]).sort()).toEqual(Object.keys(pageStrings.en).sort());
  });

  it("takes the locale from the language's name, English otherwise", () => {
    expect(localeOfLanguageName("German - Germany")).toBe("de");
    expect(localeOfLanguageName("French - Canada")).toBe("fr");
    expect(localeOfLanguageName("Spanish - Mexico")).toBe("es");
    expect(localeOfLanguageName("Italian - Italy")).toBe("en");
    expect(localeOfLanguageName(undefined)).toBe("en");
  });
});
