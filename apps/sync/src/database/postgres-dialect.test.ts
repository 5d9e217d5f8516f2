import { describe, expect, it } from "vitest";
import { postgresPlaceholders } from "./postgres-dialect.ts";

describe("postgresPlaceholders", () => {
  it("numbers the placeholders in order", () => {
    expect(postgresPlaceholders("SELECT * FROM changes WHERE sequence > ? AND survey_id IN (?, ?) LIMIT ?")).toBe(
      "SELECT * FROM changes WHERE sequence > $1 AND survey_id IN ($2, $3) LIMIT $4",
    );
    expect(postgresPlaceholders("SELECT id FROM surveys WHERE id = ANY(?::bigint[])")).toBe(
      "SELECT id FROM surveys WHERE id = ANY($1::bigint[])",
    );
  });

  it("leaves a question mark inside a quoted literal or identifier alone", () => {
    expect(postgresPlaceholders(`SELECT 'why?', "odd?name", 'it''s ?' FROM t WHERE a = ? AND b = '?'`)).toBe(
      `SELECT 'why?', "odd?name", 'it''s ?' FROM t WHERE a = $1 AND b = '?'`,
    );
  });

  it("leaves a statement without placeholders unchanged", () => {
    expect(postgresPlaceholders("SELECT value FROM counters WHERE name = 'changes'")).toBe(
      "SELECT value FROM counters WHERE name = 'changes'",
    );
  });
});
