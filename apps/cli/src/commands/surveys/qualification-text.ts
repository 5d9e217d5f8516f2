import type { QualificationDetail } from "@sds/schemas";
import type { SdsClient } from "../../connection/client.ts";

/** An option of a qualification or quota condition, with its text where the catalogue has it. */
export interface ResolvedOption {
  readonly OptionId?: number;
  readonly OptionCode?: string;
  /** Absent when the catalogue could not be read or does not know the option (free codes such as ZIPs). */
  readonly OptionText?: string;
}

/** What the catalogue says about one qualification, in one language. */
export interface QualificationText {
  readonly name?: string;
  readonly questionText?: string;
  readonly options: readonly CatalogueOption[];
}

interface CatalogueOption {
  readonly OptionId?: unknown;
  readonly OptionCode: unknown;
  readonly OptionText: string;
}

/** A record that names options: a survey qualification or a quota condition. */
export interface OptionReference {
  readonly QualificationId?: unknown;
  readonly OptionIds?: unknown;
  readonly OptionCodes?: unknown;
}

/**
 * Reads the catalogue entries of the given qualifications in one language: the question
 * detail of each (in parallel, a few at a time) and the catalogue's names. What cannot be read
 * (undocumented paths, a 404) is simply missing from the result; the caller falls back to ids.
 */
export async function readQualificationTexts(
  client: SdsClient,
  languageId: number,
  qualificationIds: readonly number[],
  signal: AbortSignal,
  onFailure: (what: string, error: unknown) => void,
): Promise<Map<number, QualificationText>> {
  const names = new Map<number, string>();
  const catalogue = client.collections.qualifications({ signal }).then(
    ({ Qualifications }) => {
      for (const entry of Qualifications) if (entry.Name !== undefined) names.set(Number(entry.Id), entry.Name);
    },
    (error: unknown) => {
      onFailure("the qualifications catalogue", error);
    },
  );
  const details = new Map<number, QualificationDetail>();
  const queue = [...new Set(qualificationIds)];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      try {
        details.set(id, (await client.collections.qualificationDetail(languageId, id, { signal })).Qualification);
      } catch (error) {
        if (signal.aborted) throw error;
        onFailure(`qualification ${id} in language ${languageId}`, error);
      }
    }
  };
  await Promise.all([catalogue, ...Array.from({ length: Math.min(4, queue.length) }, worker)]);

  const texts = new Map<number, QualificationText>();
  for (const id of new Set(qualificationIds)) {
    const detail = details.get(id);
    const name = names.get(id) ?? detail?.Code;
    texts.set(id, {
      ...(name === undefined ? {} : { name }),
      ...(detail?.QuestionText === undefined ? {} : { questionText: detail.QuestionText }),
      options: detail?.Options ?? [],
    });
  }
  return texts;
}

/**
 * The options a record names, each with its text where the catalogue has it. Options are
 * matched by `OptionIds` against the catalogue's `OptionId` where both exist, else by
 * `OptionCodes` against `OptionCode`.
 */
export function resolveOptions(record: OptionReference, text: QualificationText | undefined): ResolvedOption[] {
  const ids = Array.isArray(record.OptionIds) ? (record.OptionIds as unknown[]) : [];
  const codes = Array.isArray(record.OptionCodes) ? (record.OptionCodes as unknown[]).map(String) : [];
  const options = text?.options ?? [];
  const byId = new Map(
    options.filter((option) => option.OptionId !== undefined).map((option) => [String(option.OptionId), option]),
  );
  const byCode = new Map(options.map((option) => [String(option.OptionCode), option]));
  const count = Math.max(ids.length, codes.length);
  return Array.from({ length: count }, (_, index) => {
    const id = ids[index];
    const code = codes[index];
    const match =
      (typeof id === "number" || typeof id === "string" ? byId.get(String(id)) : undefined) ??
      (code === undefined ? undefined : byCode.get(code));
    return {
      ...(typeof id === "number" ? { OptionId: id } : {}),
      ...(code === undefined
        ? match === undefined
          ? {}
          : { OptionCode: String(match.OptionCode) }
        : { OptionCode: code }),
      ...(match === undefined ? {} : { OptionText: match.OptionText }),
    };
  });
}

/**
 * Options as one short line for a table: texts where known, else codes, else ids; a run of
 * consecutive whole numbers (ages) is shown as a range, `18–64`.
 */
export function summarizeOptions(options: readonly ResolvedOption[]): string {
  const labels = options.map((option) => option.OptionText ?? option.OptionCode ?? String(option.OptionId ?? "?"));
  const numbers = labels.map((label) => (/^\d+$/.test(label) ? Number(label) : Number.NaN));
  if (
    labels.length > 2 &&
    numbers.every(
      (number, index) => !Number.isNaN(number) && (index === 0 || number === (numbers[index - 1] as number) + 1),
    )
  ) {
    return `${labels[0] ?? ""}–${labels.at(-1) ?? ""}`;
  }
  return labels.join(", ");
}
