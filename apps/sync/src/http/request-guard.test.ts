import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { createRequestGuard, hostNameOf, type RequestGuardOptions } from "./request-guard.ts";

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const guard = (options: Partial<RequestGuardOptions> = {}) =>
  createRequestGuard({ bindHost: "127.0.0.1", port: 8787, allowedHosts: [], allowedOrigins: [], ...options });
const status = (reply: { status: number } | undefined) => reply?.status ?? "allowed";

describe("hostNameOf", () => {
  it("drops the port and the trailing dot, keeps IPv6 addresses whole", () => {
    expect(
      ["localhost:8787", "LOCALHOST.", "[::1]:8787", "[::1]", "sync.internal", "10.0.0.5:80"].map(hostNameOf),
    ).toEqual(["localhost", "localhost", "::1", "::1", "sync.internal", "10.0.0.5"]);
  });
});

describe("the request guard", () => {
  it("answers loopback names and the bind address, and refuses any other Host with 403 (DNS rebinding)", () => {
    const onLan = guard({ bindHost: "10.0.0.5" });
    for (const host of ["127.0.0.1:8787", "localhost:8787", "[::1]:8787", "app.localhost", "10.0.0.5:8787"])
      expect(status(onLan.checkHost(request({ host }))), host).toBe("allowed");
    for (const host of ["attacker.example", "attacker.example:8787", "10.0.0.6:8787", "127.0.0.1.attacker.example"])
      expect(status(onLan.checkHost(request({ host }))), host).toBe(403);
    expect(status(onLan.checkHost(request({})))).toBe(403);
  });

  it("takes SYNC_ALLOWED_HOSTS besides, never the wildcard bind address itself, and * turns the check off", () => {
    const everywhere = guard({ bindHost: "0.0.0.0", allowedHosts: ["sync.internal"] });
    expect(status(everywhere.checkHost(request({ host: "sync.internal:8787" })))).toBe("allowed");
    expect(status(everywhere.checkHost(request({ host: "0.0.0.0:8787" })))).toBe(403);
    expect(status(everywhere.checkHost(request({ host: "pod-10-0-0-7" })))).toBe(403);
    expect(status(guard({ allowedHosts: "any" }).checkHost(request({ host: "anything.example" })))).toBe("allowed");
  });

  it("lets requests without Origin through, its own origin and SYNC_ALLOWED_ORIGINS, and refuses other origins", () => {
    const withPanel = guard({ allowedOrigins: ["https://panel.example.com"] });
    for (const origin of [undefined, "http://127.0.0.1:8787", "http://localhost:8787", "https://panel.example.com"]) {
      expect(status(withPanel.checkOrigin(request(origin === undefined ? {} : { origin }))), origin).toBe("allowed");
    }
    for (const origin of [
      "http://attacker.example",
      "http://localhost:3000",
      "null",
      "https://panel.example.com:8443",
      "file://",
    ]) {
      expect(status(withPanel.checkOrigin(request({ origin }))), origin).toBe(403);
    }
  });
});
