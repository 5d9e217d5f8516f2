import { describe, expect, it } from "vitest";
import { newSessionId } from "./sessions.ts";

describe("newSessionId", () => {
  it("is URL-safe, unguessable and never starts like a command-line option", () => {
    // One base64url id in 64 starts with "-": among 2,000, some would (all but surely).
    const ids = Array.from({ length: 2000 }, newSessionId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z][A-Za-z0-9_-]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
