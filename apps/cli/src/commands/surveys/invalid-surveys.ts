import type { InvalidItem } from "@sds/schemas";
import type { CommandContext } from "../../framework/command.ts";
import { PartialFailureError } from "../../framework/errors.ts";
import { ExitCode } from "../../framework/exit-codes.ts";

/**
 * Warns about surveys of the list that failed validation (they were left out), with their
 * issues under `--debug`, and returns the error to throw once the output is written.
 */
export function reportInvalidSurveys(
  context: CommandContext,
  invalid: readonly InvalidItem[],
): PartialFailureError | undefined {
  if (invalid.length === 0) return undefined;
  const ids = invalid.map((item) => {
    const id = (item.item as { SurveyId?: unknown } | null)?.SurveyId;
    return typeof id === "number" || typeof id === "string" ? `#${id}` : `at index ${item.index}`;
  });
  context.output.warn(
    `${invalid.length} survey${invalid.length === 1 ? "" : "s"} failed validation and ${invalid.length === 1 ? "was" : "were"} left out: ${ids.slice(0, 10).join(", ")}${ids.length > 10 ? ", …" : ""}`,
  );
  if (context.globals.debug) {
    for (const item of invalid) {
      for (const issue of item.issues)
        context.io.stderr.write(
          `  index ${item.index}: ${issue.path.map(String).join(".") || "(root)"}: ${issue.message}\n`,
        );
    }
  }
  return new PartialFailureError(
    `${invalid.length} survey${invalid.length === 1 ? "" : "s"} in the list failed validation`,
    ExitCode.Validation,
    {
      hint: context.globals.debug ? "The issues are listed above." : "Run with --debug to see the issues.",
    },
  );
}
