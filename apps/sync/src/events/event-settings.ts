import type { ConfigIssue } from "../common/errors.ts";
import { booleanValue, numberValue, SettingProblem } from "../common/setting-parsers.ts";
import { hostOf, isNonPublicAddress } from "./private-addresses.ts";
import { parseSubjectFilter, type SubjectFilter } from "./subject-filter.ts";

/*
 * The rows of the configuration table for events out (NATS JetStream and signed webhooks). The
 * table (config/config.ts) includes them; `--help`, docs/reference.md and the logged
 * configuration are generated from it like every other row.
 */

/** One webhook endpoint of `SYNC_WEBHOOK_URLS`. */
export interface WebhookEndpoint {
  /** Its name: the `sink` label (`webhook:<name>`) and `POST /v1/webhooks/{name}/resume`. */
  readonly name: string;
  readonly url: URL;
  /** Subjects (without the prefix) it receives; undefined: every event. */
  readonly filter?: SubjectFilter | undefined;
}

/** The events' settings, part of `SyncConfig`. */
export interface EventsConfig {
  /** `SYNC_NATS_URL`: publish both feeds to this NATS server's JetStream; unset: no NATS. Credentials in it are secret. */
  readonly natsUrl?: URL | undefined;
  /** `SYNC_NATS_CREDS`: a NATS `.creds` file (JWT and NKey seed) to connect with. */
  readonly natsCredsFile?: string | undefined;
  /** `SYNC_NATS_SUBJECT_PREFIX`. @default "sds" */
  readonly natsSubjectPrefix?: string | undefined;
  /** `SYNC_NATS_STREAM`. @default "SDS" */
  readonly natsStream?: string | undefined;
  /** `SYNC_NATS_MAX_AGE_SECONDS`: max age of the stream sds-sync creates. @default 604800 */
  readonly natsMaxAgeSeconds?: number | undefined;
  /** `SYNC_NATS_REPLICAS`: replicas of the stream sds-sync creates. @default 1 */
  readonly natsReplicas?: number | undefined;
  /** `SYNC_WEBHOOK_URLS`: endpoints that receive every event as a signed POST. */
  readonly webhookEndpoints?: readonly WebhookEndpoint[] | undefined;
  /** `SYNC_WEBHOOK_SECRET`: the Standard Webhooks signing secret (`whsec_` + base64). Secret. */
  readonly webhookSecret?: string | undefined;
  /** `SYNC_WEBHOOK_TIMEOUT_MS`. @default 5000 */
  readonly webhookTimeoutMs?: number | undefined;
  /** `SYNC_WEBHOOK_RETRY_HOURS`: how long an event is retried before its endpoint is marked failing. @default 24 */
  readonly webhookRetryHours?: number | undefined;
  /** `SYNC_WEBHOOK_ALLOW_PRIVATE`: allow plain http and private or loopback addresses. @default false */
  readonly webhookAllowPrivate?: boolean | undefined;
}

function parseNatsUrl(raw: string): URL {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  // Never echo the value: it may hold a password.
  if (!url || (url.protocol !== "nats:" && url.protocol !== "tls:"))
    throw new SettingProblem("must be nats://[user:password@]host:port (or tls://…); the value is not shown");
  if (url.pathname !== "" && url.pathname !== "/")
    throw new SettingProblem("must be nats://[user:password@]host:port, without a path");
  return url;
}

/** The user and password of `SYNC_NATS_URL`, for the logger to scrub. */
function natsUrlSecrets(url: URL | undefined): string[] {
  if (url === undefined) return [];
  return [url.password, decodeURIComponent(url.password)].filter((secret) => secret !== "");
}

/** `SYNC_NATS_URL` as safe to log: the password masked. */
export function describeNatsUrl(url: URL | undefined): string | undefined {
  if (url === undefined) return undefined;
  const shown = new URL(url);
  if (shown.password) shown.password = "****";
  return shown.toString();
}

const SUBJECT_TOKEN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const STREAM_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const ENDPOINT_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;
/** `NAME=` before an endpoint's URL: no `:` or `/` in it, so a `=` in a URL's query never reads as a name. */
const NAMED = /^([^=:/]+)=(.*)$/s;

/** One entry of `SYNC_WEBHOOK_URLS` before the endpoints without a name get theirs. */
interface ParsedEndpoint {
  readonly name: string | undefined;
  readonly url: URL;
  readonly filter?: SubjectFilter | undefined;
}

function parseEndpointEntry(item: string): ParsedEndpoint {
  const [target = "", ...subjects] = item.split("|");
  const named = NAMED.exec(target);
  const name = named?.[1]?.trim().toLowerCase();
  if (name !== undefined && !ENDPOINT_NAME.test(name))
    throw new SettingProblem(
      `must be a comma list of [NAME=]URL[|SUBJECTS] (NAME: lower-case letters, digits, ., - and _), got the name ${JSON.stringify(name)}`,
    );
  const text = (named?.[2] ?? target).trim();
  const owner = name ?? "an endpoint";
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:"))
    throw new SettingProblem(`${owner}: must be an https URL, got ${JSON.stringify(text.split("?")[0])}`);
  if (url.username || url.password) throw new SettingProblem(`${owner}: must not hold credentials`);
  if (url.hash !== "") throw new SettingProblem(`${owner}: must not hold a fragment`);
  return {
    name,
    url,
    ...(subjects.length === 0 ? {} : { filter: parseSubjectFilter(subjects, name ?? url.hostname) }),
  };
}

/** The name of an endpoint given without one: its host (`hooks.example.com`), as a name may be spelt. */
function nameFromHost(url: URL): string {
  const name = url.hostname
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 90);
  return name === "" ? "webhook" : name;
}

/**
 * `SYNC_WEBHOOK_URLS`: a comma list of endpoints, each a URL or `NAME=URL`, optionally followed
 * by `|` and subject filters in NATS wildcard form separated by `|`
 * (`https://ledger.example/hooks|outcomes.>`, `ledger=https://ledger.example/hooks|outcomes.>`).
 * An endpoint without a name is named after its host (`ledger.example`), `-2`, `-3`… when hosts
 * repeat: the name is its `sink` label and what `POST /v1/webhooks/{name}/resume` takes. http and
 * private addresses are checked against `SYNC_WEBHOOK_ALLOW_PRIVATE` by a rule (config.ts).
 */
export function parseWebhookEndpoints(raw: string): WebhookEndpoint[] {
  const parsed = raw
    .split(",")
    .map((part) => part.trim())
    .filter((item) => item !== "")
    .map(parseEndpointEntry);
  if (parsed.length === 0) throw new SettingProblem("names no endpoint");
  const taken = new Set<string>();
  for (const { name } of parsed) {
    if (name === undefined) continue;
    if (taken.has(name)) throw new SettingProblem(`names the endpoint ${name} twice`);
    taken.add(name);
  }
  return parsed.map(({ name, ...endpoint }) => {
    if (name !== undefined) return { name, ...endpoint };
    const base = nameFromHost(endpoint.url);
    let derived = base;
    for (let suffix = 2; taken.has(derived); suffix++) derived = `${base}-${suffix}`;
    taken.add(derived);
    return { name: derived, ...endpoint };
  });
}

function parseWebhookSecret(raw: string): string {
  if (!raw.startsWith("whsec_"))
    throw new SettingProblem("must be whsec_ followed by base64, as Standard Webhooks says (the value is not shown)");
  const key = raw.slice("whsec_".length);
  if (!/^[A-Za-z0-9+/]+=*$/.test(key) || Buffer.from(key, "base64").length < 24)
    throw new SettingProblem("must be whsec_ followed by at least 24 bytes in base64 (the value is not shown)");
  return raw;
}

/** The events' rows of the configuration table, in the order `--help` lists them. */
export const eventSettings = {
  natsUrl: {
    variable: "SYNC_NATS_URL",
    description:
      "nats://host:port of a NATS server with JetStream: the leader publishes every outcome and change to it (see docs/events.md). A user and password in the URL are never logged. Unset: no NATS.",
    parse: parseNatsUrl,
    fallback: { kind: "unset" },
    secretsIn: natsUrlSecrets,
    describe: describeNatsUrl,
  },
  natsCredsFile: {
    variable: "SYNC_NATS_CREDS",
    description: "Path of a NATS .creds file (user JWT and NKey seed) to connect with; its content is never logged.",
    parse: (raw: string) => raw,
    fallback: { kind: "unset" },
  },
  natsSubjectPrefix: {
    variable: "SYNC_NATS_SUBJECT_PREFIX",
    description:
      "Subjects are <prefix>.outcomes.<outcome> and <prefix>.changes.<type> (dot-separated letters, digits, - and _).",
    parse: (raw: string) => {
      if (!SUBJECT_TOKEN.test(raw))
        throw new SettingProblem(`must be subject tokens such as sds or acme.sds, got ${JSON.stringify(raw)}`);
      return raw;
    },
    fallback: { kind: "default", raw: "sds" },
  },
  natsStream: {
    variable: "SYNC_NATS_STREAM",
    description:
      "The JetStream stream the events go to, created (for <prefix>.>) when missing; an existing stream's configuration is never changed.",
    parse: (raw: string) => {
      if (!STREAM_NAME.test(raw))
        throw new SettingProblem(`must be a stream name (letters, digits, - and _), got ${JSON.stringify(raw)}`);
      return raw;
    },
    fallback: { kind: "default", raw: "SDS" },
  },
  natsMaxAgeSeconds: {
    variable: "SYNC_NATS_MAX_AGE_SECONDS",
    description: "Max age of the events in the stream sds-sync creates (60 to 315360000 seconds).",
    parse: numberValue({ min: 60, max: 315_360_000, integer: true }),
    fallback: { kind: "default", raw: String(7 * 24 * 3600) },
  },
  natsReplicas: {
    variable: "SYNC_NATS_REPLICAS",
    description: "Replicas of the stream sds-sync creates (1 to 5).",
    parse: numberValue({ min: 1, max: 5, integer: true }),
    fallback: { kind: "default", raw: "1" },
  },
  webhookEndpoints: {
    variable: "SYNC_WEBHOOK_URLS",
    description:
      "Comma list of https endpoints, each [NAME=]URL[|SUBJECT…], that receive every event as a Standard Webhooks POST, optionally only the subjects matching NATS wildcards such as outcomes.> (https://ledger.example/hooks|outcomes.>). NAME (what POST /v1/webhooks/{name}/resume takes) defaults to the URL's host, -2, -3… when hosts repeat. Private and loopback addresses are refused unless SYNC_WEBHOOK_ALLOW_PRIVATE.",
    parse: parseWebhookEndpoints,
    fallback: { kind: "unset" },
    // A receiver may take a key in the query (?token=…): the query is never shown, its values never logged.
    describe: (endpoints: readonly WebhookEndpoint[] | undefined) =>
      endpoints?.map((endpoint) => `${endpoint.name}=${endpoint.url.origin}${endpoint.url.pathname}`),
    secretsIn: (endpoints: readonly WebhookEndpoint[] | undefined) =>
      (endpoints ?? []).flatMap((endpoint) =>
        [...endpoint.url.searchParams.values()].filter((value) => value.length >= 8),
      ),
  },
  webhookSecret: {
    variable: "SYNC_WEBHOOK_SECRET",
    description: "The webhooks' signing secret, whsec_ followed by base64 (Standard Webhooks). Never logged.",
    parse: parseWebhookSecret,
    fallback: { kind: "unset" },
    secret: true,
  },
  webhookTimeoutMs: {
    variable: "SYNC_WEBHOOK_TIMEOUT_MS",
    description:
      "Milliseconds (100 to 120000) a webhook endpoint has to answer a POST; past it the attempt fails and is retried.",
    parse: numberValue({ min: 100, max: 120_000, integer: true }),
    fallback: { kind: "default", raw: "5000" },
  },
  webhookRetryHours: {
    variable: "SYNC_WEBHOOK_RETRY_HOURS",
    description:
      "Hours (0.01 to 720) an event is retried (exponential backoff, at most 5 minutes apart) before its endpoint is marked failing; it is still retried every 5 minutes, and POST /v1/webhooks/{name}/resume retries at once.",
    parse: numberValue({ min: 0.01, max: 720, integer: false }),
    fallback: { kind: "default", raw: "24" },
  },
  webhookAllowPrivate: {
    variable: "SYNC_WEBHOOK_ALLOW_PRIVATE",
    description:
      "true to allow webhook endpoints on plain http and on private or loopback addresses (tests, a receiver on the same network). Without it such an endpoint stops the start (exit 78).",
    parse: booleanValue,
    fallback: { kind: "default", raw: "false" },
  },
} as const;

/** Rules across the events' settings, applied by the loader once every setting is valid. */
export const eventConfigRules: readonly ((config: EventsConfig) => ConfigIssue | undefined)[] = [
  (config) =>
    config.webhookEndpoints !== undefined && config.webhookSecret === undefined
      ? {
          variable: "SYNC_WEBHOOK_SECRET",
          message: "is required with SYNC_WEBHOOK_URLS: whsec_ followed by base64 (Standard Webhooks)",
        }
      : undefined,
  (config) => {
    if (config.webhookAllowPrivate === true) return undefined;
    for (const endpoint of config.webhookEndpoints ?? []) {
      const host = hostOf(endpoint.url);
      if (endpoint.url.protocol !== "https:")
        return {
          variable: "SYNC_WEBHOOK_URLS",
          message: `${endpoint.name}: must be https (plain http only with SYNC_WEBHOOK_ALLOW_PRIVATE=true)`,
        };
      if (isNonPublicAddress(host) || host === "localhost" || host.endsWith(".localhost"))
        return {
          variable: "SYNC_WEBHOOK_URLS",
          message: `${endpoint.name}: ${host} is a private or loopback address; set SYNC_WEBHOOK_ALLOW_PRIVATE=true if that is intended`,
        };
    }
    return undefined;
  },
];
