import { describe, expect, it } from "vitest";
import { missingHeapFlags, missingMemoryEnv } from "./heap-flags.ts";

const ALL = ["--max-semi-space-size=4", "--heap-growing-percent=20"];

describe("missingHeapFlags", () => {
  it("adds the young-generation limit and the old generation's growth when the operator set neither", () => {
    expect(missingHeapFlags([], undefined)).toEqual(ALL);
    expect(missingHeapFlags(["--conditions=@sds/source"], "--enable-source-maps --max-old-space-size=1024")).toEqual(
      ALL,
    );
  });

  it("lets each of the operator's own settings win, in NODE_OPTIONS or on the command line, in either spelling", () => {
    expect(missingHeapFlags([], "--max_semi_space_size=64")).toEqual(["--heap-growing-percent=20"]);
    expect(missingHeapFlags(["--max-heap-size=512"], "")).toEqual(["--heap-growing-percent=20"]);
    expect(missingHeapFlags([], "--heap_growing_percent=50")).toEqual(["--max-semi-space-size=4"]);
  });

  it("adds nothing once the command line carries them, as after the re-exec", () => {
    expect(missingHeapFlags(ALL, undefined)).toEqual([]);
  });
});

describe("missingMemoryEnv", () => {
  it("caps glibc's malloc arenas unless the operator set the variable, to any value", () => {
    expect(missingMemoryEnv({ PATH: "/usr/bin" })).toEqual({ MALLOC_ARENA_MAX: "2" });
    expect(missingMemoryEnv({ MALLOC_ARENA_MAX: "8" })).toEqual({});
    expect(missingMemoryEnv({ MALLOC_ARENA_MAX: "" })).toEqual({});
  });
});
