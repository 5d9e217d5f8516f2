import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { SettingProblem } from "../common/setting-parsers.ts";
import {
  addressBlock,
  canonicalAddress,
  clientAddressOf,
  parseTrustedProxies,
  type ClientAddressOf,
} from "./client-address.ts";

/** The address a real server decides for one request sent from 127.0.0.1 with these headers. */
async function seenAddress(addressOf: ClientAddressOf, headers: Record<string, string>): Promise<string> {
  const server = createServer((request, response) => response.end(addressOf(request)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<string>((resolve, reject) => {
      const sent = httpRequest({ host: "127.0.0.1", port, path: "/", headers }, (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => {
          resolve(body);
        });
      });
      sent.on("error", reject);
      sent.end();
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe("the client address", () => {
  it("is the socket's when no proxy is trusted, whatever X-Forwarded-For claims", async () => {
    expect(await seenAddress(clientAddressOf([]), { "x-forwarded-for": "203.0.113.7" })).toBe("127.0.0.1");
  });

  it("is the nearest untrusted address of X-Forwarded-For when the peer is a trusted proxy", async () => {
    const addressOf = clientAddressOf(parseTrustedProxies("loopback, 10.0.0.0/8"));
    // A client may prepend anything; the proxies append. The nearest untrusted hop is the client.
    const forwarded = { "x-forwarded-for": "198.51.100.1, 203.0.113.7, 10.1.2.3" };
    expect(await seenAddress(addressOf, forwarded)).toBe("203.0.113.7");
    expect(await seenAddress(addressOf, {})).toBe("127.0.0.1");
  });

  it("ignores X-Forwarded-For when the peer is not one of the trusted proxies", async () => {
    const addressOf = clientAddressOf(parseTrustedProxies("10.0.0.0/8"));
    expect(await seenAddress(addressOf, { "x-forwarded-for": "203.0.113.7" })).toBe("127.0.0.1");
  });

  it("is spelt one way however a proxy or a server wrote it (velocity-ip counts it as one address)", async () => {
    const addressOf = clientAddressOf(parseTrustedProxies("loopback"));
    expect(await seenAddress(addressOf, { "x-forwarded-for": "2001:DB8:0:0:0:0:0:7" })).toBe("2001:db8::7");
    expect(await seenAddress(addressOf, { "x-forwarded-for": "::FFFF:203.0.113.7" })).toBe("203.0.113.7");
    expect(canonicalAddress("::ffff:cb00:7107")).toBe("203.0.113.7");
    expect(canonicalAddress("0:0:0:0:0:ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(canonicalAddress("203.0.113.7")).toBe("203.0.113.7");
    expect(canonicalAddress("FE80::1%ETH0")).toBe("fe80::1%eth0");
  });

  it("is counted by its /64 when it is IPv6, by itself when it is IPv4", () => {
    expect(addressBlock("2001:db8:5:6:a:b:c:d")).toBe("2001:db8:5:6::/64");
    expect(addressBlock("2001:DB8:5:6::1")).toBe("2001:db8:5:6::/64");
    expect(addressBlock("2001:db8::1")).toBe("2001:db8::/64");
    expect(addressBlock("::1")).toBe("::/64");
    expect(addressBlock("fe80::1:2:3:4")).toBe("fe80::/64");
    expect(addressBlock("203.0.113.7")).toBe("203.0.113.7");
    expect(addressBlock("::FFFF:203.0.113.7")).toBe("203.0.113.7");
    expect(addressBlock("fe80::1%eth0")).toBe("fe80::1%eth0");
  });

  it("refuses a setting that names no address, or something that is not one", () => {
    expect(() => parseTrustedProxies(" , ")).toThrow(SettingProblem);
    expect(() => parseTrustedProxies("10.0.0.0/8, proxy.example.com")).toThrow(/"proxy.example.com" is not an address/);
  });
});
