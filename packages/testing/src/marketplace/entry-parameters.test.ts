import { describe, expect, it } from "vitest";
import { entryParameterNames } from "./entry-parameters.ts";

describe("entryParameterNames", () => {
  it("reads the token from [#vq_tid#], and from [%RID%] when the URL carries no [#vq_tid#]", () => {
    expect(entryParameterNames("https://s.example/e?tid=[#vq_tid#]&u=[#VQ_TUID#]")).toEqual({ token: "tid", uid: "u" });
    expect(entryParameterNames("https://s.example/e?rid=[%RID%]&x=1")).toEqual({ token: "rid", uid: undefined });
    expect(entryParameterNames("https://s.example/e?rid=[%RID%]&tid=[#vq_tid#]")).toEqual({
      token: "tid",
      uid: undefined,
    });
  });
});
