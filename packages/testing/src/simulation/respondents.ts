import type { Device } from "@sds/schemas";
import { languages } from "../fixtures/languages.ts";
import { qualificationCatalogue } from "../fixtures/qualification-catalogue.ts";
import { createSeededRandom, deriveSeed, type SeededRandom } from "../random.ts";
import type { SimulatedRespondent } from "./types.ts";

const AGE_QUALIFICATION = 42;
const devices: readonly Device[] = ["desktop", "desktop", "desktop", "mobile", "mobile", "tablet"];

/**
 * One respondent drawn from `(seed, index)` alone, so respondent N is the same in a run of 100 or
 * of 100,000. Every catalogue question is answered: an age of 18 to 75, one option of a
 * single-choice question, one to three of a multi-choice one, and a ZIP code, taken from
 * `zipCodes` (those surveys screen on) half of the time so that ZIP-targeted surveys get some
 * traffic. Languages follow the survey factory's mix (most traffic in the first language).
 */
export function buildRespondent(seed: number, index: number, zipCodes: readonly string[]): SimulatedRespondent {
  const random = createSeededRandom(deriveSeed(seed, index, 0x2e5));
  const answers: Record<string, readonly string[]> = {};
  for (const qualification of qualificationCatalogue) {
    answers[String(qualification.Id)] = answer(
      qualification.Id,
      qualification.TypeName,
      qualification.Options,
      zipCodes,
      random,
    );
  }
  const language = random.chance(0.45) ? languages[0] : random.pick(languages);
  return {
    index,
    id: `r-${String(index).padStart(6, "0")}`,
    answers,
    languageId: language?.Id ?? 1,
    device: random.pick(devices),
  };
}

function answer(
  id: number,
  type: "Single" | "Multi" | "Range" | "Text",
  options: readonly { readonly OptionCode: number }[],
  zipCodes: readonly string[],
  random: SeededRandom,
): readonly string[] {
  if (id === AGE_QUALIFICATION || type === "Range") return [String(random.int(18, 75))];
  if (options.length === 0) {
    return [
      zipCodes.length > 0 && random.chance(0.5)
        ? random.pick(zipCodes)
        : String(random.int(10_000, 99_950)).padStart(5, "0"),
    ];
  }
  const codes = options.map((option) => String(option.OptionCode));
  return type === "Multi" ? random.sample(codes, random.int(1, Math.min(3, codes.length))) : [random.pick(codes)];
}
