import type { IncomingMessage } from "node:http";
import { errorReply, type Reply } from "./respond.ts";

/*
 * Protected mode, in the spirit of Redis's: the API answers only requests addressed to it by a
 * name it knows, so a web page cannot read it through DNS rebinding (the browser sends the
 * attacker's host name in Host), and mutating routes refuse browser requests from other origins
 * (a cross-site form POST needs no preflight).
 */

/** Options of {@link createRequestGuard}. */
export interface RequestGuardOptions {
  /** The interface the API listens on (`HOST`). */
  readonly bindHost: string;
  /** The port it listens on (known once listening). */
  readonly port: number;
  /** `SYNC_ALLOWED_HOSTS`; `"any"` turns the Host check off. */
  readonly allowedHosts: readonly string[] | "any";
  /** `SYNC_ALLOWED_ORIGINS`, as origins (`https://panel.example.com`). */
  readonly allowedOrigins: readonly string[];
}

/** Checks one request's Host and Origin; `undefined` lets it through. */
export interface RequestGuard {
  /** For routes that serve data: refuses a Host header that names neither this machine nor an allowed host. */
  checkHost(request: IncomingMessage): Reply | undefined;
  /** For mutating routes: refuses an Origin header that is not this service's own origin nor an allowed one. */
  checkOrigin(request: IncomingMessage): Reply | undefined;
}

/** The host name of a Host header (`[::1]:8787` -> `::1`), lower-cased, without a trailing dot. */
export function hostNameOf(host: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(host);
  const name = bracketed ? (bracketed[1] ?? "") : host.replace(/:\d*$/, "");
  return name.toLowerCase().replace(/\.$/, "");
}

/** Creates the guard of one listener. */
export function createRequestGuard(options: RequestGuardOptions): RequestGuard {
  const bindName = hostNameOf(
    options.bindHost.includes(":") && !options.bindHost.startsWith("[") ? `[${options.bindHost}]` : options.bindHost,
  );
  const wildcard = bindName === "0.0.0.0" || bindName === "::" || bindName === "";
  const allowedNames = new Set(options.allowedHosts === "any" ? [] : options.allowedHosts.map(hostNameOf));
  const isOwnName = (name: string): boolean =>
    isLoopbackHost(name) || (!wildcard && name === bindName) || allowedNames.has(name);
  const isAllowedName = (name: string): boolean => options.allowedHosts === "any" || isOwnName(name);
  const allowedOrigins = new Set(options.allowedOrigins);
  return {
    checkHost(request) {
      const host = request.headers.host;
      if (host !== undefined && isAllowedName(hostNameOf(host))) return undefined;
      return errorReply(
        403,
        "host_not_allowed",
        "this Host is not one sds-sync answers to; add it to SYNC_ALLOWED_HOSTS if it is yours",
      );
    },
    checkOrigin(request) {
      const origin = request.headers.origin;
      if (origin === undefined || allowedOrigins.has(origin)) return undefined;
      // The service's own origin: a page it serves itself (the status page) may post to it.
      if (URL.canParse(origin)) {
        const url = new URL(origin);
        const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
        if (
          (url.protocol === "http:" || url.protocol === "https:") &&
          port === options.port &&
          isOwnName(hostNameOf(url.host))
        )
          return undefined;
      }
      return errorReply(
        403,
        "origin_not_allowed",
        "requests from this Origin may not change anything; add it to SYNC_ALLOWED_ORIGINS if it is yours",
      );
    },
  };
}

export function isLoopbackHost(host: string): boolean {
  const name = host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
  return (
    name === "localhost" ||
    name.endsWith(".localhost") ||
    /^127(\.\d{1,3}){3}$/.test(name) ||
    name === "::1" ||
    name === "0:0:0:0:0:0:0:1"
  );
}
