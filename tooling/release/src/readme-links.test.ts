import { describe, expect, it } from "vitest";
import { relativeLinksIn } from "./readme-links.ts";

describe("relativeLinksIn", () => {
  it("reports links into the repository, which the registry's page cannot follow", () => {
    const markdown = "See [schemas](../schemas), [the runbook](docs/runbook.md) and [a file](<./a b.md>).";
    expect(relativeLinksIn(markdown)).toEqual(["../schemas", "docs/runbook.md", "./a"]);
  });

  it("accepts absolute links, mail links and in-page anchors", () => {
    const markdown =
      "[npm](https://www.npmjs.com/package/@sds/client) [unpkg]( https://unpkg.com/@sds/sync/docs/runbook.md ) [mail](mailto:a@b.c) [below](#exit-codes)";
    expect(relativeLinksIn(markdown)).toEqual([]);
  });
});
