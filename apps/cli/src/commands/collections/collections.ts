import type { SdsClient } from "../../connection/client.ts";
import { connect } from "../../connection/client.ts";
import { defineCommand } from "../../framework/command.ts";
import { UsageError } from "../../framework/errors.ts";
import { inferColumns } from "../../framework/record-columns.ts";

/** A reference collection: the client call that reads it and the field of its records. */
interface CollectionSource {
  readonly fetch: (client: SdsClient, signal: AbortSignal) => Promise<object>;
  readonly listField: string;
}

/** The eight list collections, by the name the command takes. */
const collections: ReadonlyMap<string, CollectionSource> = new Map<string, CollectionSource>([
  ["languages", { fetch: (client, signal) => client.collections.languages({ signal }), listField: "Languages" }],
  ["industries", { fetch: (client, signal) => client.collections.industries({ signal }), listField: "Industries" }],
  ["study-types", { fetch: (client, signal) => client.collections.studyTypes({ signal }), listField: "StudyTypes" }],
  [
    "survey-statuses",
    { fetch: (client, signal) => client.collections.surveyStatuses({ signal }), listField: "SurveyStatuses" },
  ],
  [
    "qualification-categories",
    {
      fetch: (client, signal) => client.collections.qualificationCategories({ signal }),
      listField: "QualificationCategories",
    },
  ],
  [
    "qualification-category-types",
    {
      fetch: (client, signal) => client.collections.qualificationCategoryTypes({ signal }),
      listField: "QualificationCategoryTypes",
    },
  ],
  [
    "qualification-types",
    { fetch: (client, signal) => client.collections.qualificationTypes({ signal }), listField: "QualificationTypes" },
  ],
  [
    "qualifications",
    { fetch: (client, signal) => client.collections.qualifications({ signal }), listField: "Qualifications" },
  ],
]);

const collectionNames = [...collections.keys()];

/**
 * The collection a typed name means: the command's kebab-case names, or the spec's names in any
 * case (`StudyTypes`, `studytypes`).
 */
function findCollection(typed: string): string | undefined {
  const squashed = typed.toLowerCase().replaceAll(/[-_\s]/g, "");
  return collectionNames.find((name) => name.replaceAll("-", "") === squashed);
}

/** `sds collections [NAME]`: one reference collection, or the names of all of them. */
export const command = defineCommand({
  description: `Lists a reference collection, or without NAME the names of the collections (nothing is fetched). NAME is one of ${collectionNames.join(", ")} (the spec's names such as StudyTypes work too). The ninth collection, one qualification question with its options, is \`sds collections qualification LANGUAGE_ID QUALIFICATION_ID\`. Several of these operations are not in the spec; their paths follow public integrations or are guesses.`,
  arguments: [
    {
      name: "NAME",
      description: "the collection (leave out to list the names)",
      suggestions: collectionNames,
      optional: true,
    },
  ],
  options: {},
  examples: [
    { command: "collections", description: "The names of the collections" },
    { command: "collections languages", description: "Languages with their country codes" },
    { command: "collections industries -o csv", description: "Industries as CSV" },
    { command: "collections qualification 3 43", description: "Question 43 in language 3, with its options" },
  ],
  async run(context) {
    const typed = context.positionals[0];
    if (typed === undefined) {
      const names = [...collections].map(([name, source]) => ({ Name: name, SpecName: source.listField }));
      await context.output.records(names, { columns: [{ header: "Name" }, { header: "SpecName" }] });
      if (context.output.format === "table")
        context.output.note(
          "`sds collections NAME` lists one; `sds collections qualification LANGUAGE_ID QUALIFICATION_ID` shows one question.",
        );
      return;
    }
    const name = findCollection(typed);
    const source = name === undefined ? undefined : collections.get(name);
    if (source === undefined)
      throw new UsageError(`no collection "${typed}"`, { hint: `Collections: ${collectionNames.join(", ")}.` });
    const { client } = await connect(context);
    const response = (await source.fetch(client, context.signal)) as Record<string, unknown>;
    const list = response[source.listField];
    const records = Array.isArray(list) ? (list as object[]) : [];
    await context.output.records(records, {
      columns: inferColumns(records, ["Id", "Name"]),
      emptyMessage: `The ${name ?? typed} collection is empty.`,
    });
  },
});
