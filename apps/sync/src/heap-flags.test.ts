import { describe, expect, it } from "vitest";
import { missingHeapFlags } from "./heap-flags.ts";

describe("missingHeapFlags", () => {
  it("adds the semi-space limit when the operator set none", () => {
    expect(missingHeapFlags([], undefined)).toEqual(["--max-semi-space-size=16"]);
    expect(missingHeapFlags(["--conditions=@sds/source"], "--enable-source-maps --max-old-space-size=1024")).toEqual(["--max-semi-space-size=16"]);
  });

  it("lets the operator's own limit win, in NODE_OPTIONS or on the command line, in either spelling", () => {
    expect(missingHeapFlags([], "--max_semi_space_size=64")).toEqual([]);
    expect(missingHeapFlags(["--max-heap-size=512"], "")).toEqual([]);
  });

  it("adds nothing once the command line carries the limit, as after the re-exec", () => {
    expect(missingHeapFlags(["--max-semi-space-size=16"], undefined)).toEqual([]);
  });
});
