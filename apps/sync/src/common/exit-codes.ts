/** Where a command writes: stdout for results, stderr for problems. */
export interface CommandOutput {
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
}

/** All is well. */
export const EXIT_OK = 0;
/** An invalid setting (EX_CONFIG of sysexits.h). */
export const EXIT_CONFIG = 78;
/** Something needed could not be reached, or refused: try again later (EX_TEMPFAIL of sysexits.h). */
export const EXIT_TEMPORARY_FAILURE = 75;
