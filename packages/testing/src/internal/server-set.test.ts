import { describe, expect, it } from "vitest";
import { createServerSet } from "./server-set.ts";

function fakeServer(name: string, closed: string[]) {
  return {
    name,
    close: () => {
      closed.push(name);
      return Promise.resolve();
    },
  };
}

describe("createServerSet", () => {
  it("closes every server still open, each once, and forgets one closed on its own", async () => {
    const closed: string[] = [];
    const servers = createServerSet();
    const first = servers.track(fakeServer("first", closed));
    servers.track(fakeServer("second", closed));
    expect(first.name).toBe("first");
    await first.close();
    await first.close();
    expect(servers.size).toBe(1);
    await servers.closeAll();
    expect(closed).toEqual(["first", "second"]);
    expect(servers.size).toBe(0);
  });
});
