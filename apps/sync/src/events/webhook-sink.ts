import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Webhook } from "standardwebhooks";
import { VERSION } from "../common/version.ts";
import type { WebhookEndpoint } from "./event-settings.ts";
import type { DeliveryReport, EventSink } from "./event-sink.ts";
import type { FeedEvent } from "./feed-events.ts";
import { hostOf, isNonPublicAddress } from "./private-addresses.ts";
import { subjectMatches } from "./subject-filter.ts";

/** The most of a response body ever read (the rest is dropped with the connection). */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** The most of a refusal's body kept in the last error. */
const ERROR_TEXT_CHARS = 200;
/** Longest pause between two attempts: the issue's "at most 5 minutes apart". */
const MAX_BACKOFF_MS = 5 * 60_000;

/** Options of {@link WebhookSink}. */
export interface WebhookSinkOptions {
  readonly endpoint: WebhookEndpoint;
  /** `SYNC_WEBHOOK_SECRET`: `whsec_` + base64. */
  readonly secret: string;
  readonly timeoutMs: number;
  /** `SYNC_WEBHOOK_ALLOW_PRIVATE`: private and loopback addresses allowed. */
  readonly allowPrivate: boolean;
  /** The clock stamping `webhook-timestamp`. @default Date.now */
  readonly now?: () => number;
}

/**
 * A resolver that refuses non-public addresses, so a name that resolved to a public address at
 * start cannot be turned to an internal one later (DNS rebinding).
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) {
      callback(error, "", 0);
      return;
    }
    const usable = addresses.filter((entry) => !isNonPublicAddress(entry.address));
    const first = usable[0];
    if (first === undefined) {
      const refused = new Error(
        `${hostname} resolves to a private or loopback address only (set SYNC_WEBHOOK_ALLOW_PRIVATE to allow it)`,
      );
      callback(refused, "", 0);
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, first.address, first.family);
  });
};

/** The text of a refusal, as safe to log and show: printable, short. */
function shortText(body: Buffer): string {
  const text = body
    .toString("utf8")
    .replace(/[^\x20-\x7e]+/g, " ")
    .trim();
  return text.length > ERROR_TEXT_CHARS ? `${text.slice(0, ERROR_TEXT_CHARS)}…` : text;
}

/**
 * One webhook endpoint: each event is one POST signed the Standard Webhooks way (`webhook-id` is
 * the event's id, the same on every retry), body `{"type", "timestamp", "data"}`. A 2xx
 * acknowledges; a redirect, any other status, a timeout or a network error fails the attempt.
 * Redirects are never followed and at most 64 KiB of a response is read.
 */
export class WebhookSink implements EventSink {
  readonly name: string;
  readonly kind = "webhook" as const;
  /** Small: events of one batch delivered before a crash are sent again (same `webhook-id`). */
  readonly batchSize = 50;
  readonly maxBackoffMs = MAX_BACKOFF_MS;
  readonly endpoint: WebhookEndpoint;
  readonly #signer: Webhook;
  readonly #timeoutMs: number;
  readonly #agent: http.Agent;
  readonly #now: () => number;

  constructor(options: WebhookSinkOptions) {
    this.endpoint = options.endpoint;
    this.name = `webhook:${options.endpoint.name}`;
    this.#signer = new Webhook(options.secret);
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now ?? Date.now;
    const agentOptions = {
      keepAlive: true,
      // One connection per feed: each feed's relay sends one request at a time, and neither may
      // wait (its timeout running) behind the other's slow request.
      maxSockets: 2,
      ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
    };
    this.#agent =
      options.endpoint.url.protocol === "https:" ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    if (!options.allowPrivate && isNonPublicAddress(hostOf(options.endpoint.url)))
      throw new Error(`${this.name}: ${hostOf(options.endpoint.url)} is a private or loopback address`);
  }

  accepts(event: FeedEvent): boolean {
    return subjectMatches(this.endpoint.filter, event.subject);
  }

  async deliver(events: readonly FeedEvent[], signal: AbortSignal): Promise<DeliveryReport> {
    for (const [index, event] of events.entries()) {
      if (signal.aborted) return { delivered: index, error: "stopping" };
      const error = await this.#post(event, signal);
      if (error !== undefined) return { delivered: index, error };
    }
    return { delivered: events.length };
  }

  close(): Promise<void> {
    this.#agent.destroy();
    return Promise.resolve();
  }

  /** One attempt; resolves with what went wrong, undefined when acknowledged. */
  #post(event: FeedEvent, signal: AbortSignal): Promise<string | undefined> {
    const payload = `{"type":${JSON.stringify(event.subject)},"timestamp":${JSON.stringify(event.at)},"data":${event.body}}`;
    const sentAt = new Date(this.#now());
    const headers = {
      "content-type": "application/json",
      "user-agent": `sds-sync/${VERSION}`,
      "webhook-id": event.id,
      "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
      "webhook-signature": this.#signer.sign(event.id, sentAt, payload),
    };
    const url = this.endpoint.url;
    const client = url.protocol === "https:" ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (error: string | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(error);
      };
      const request = client.request(url, { method: "POST", headers, agent: this.#agent }, (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let bytes = 0;
        const conclude = () => {
          const body = Buffer.concat(chunks);
          if (status >= 200 && status < 300) finish(undefined);
          else if (status >= 300 && status < 400)
            finish(`HTTP ${status}: redirect to ${response.headers.location ?? "nowhere"} not followed`);
          else finish(`HTTP ${status}${body.length > 0 ? `: ${shortText(body)}` : ""}`);
        };
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes <= MAX_RESPONSE_BYTES) chunks.push(chunk);
          else {
            // Enough read: the status is known; the rest is never read.
            response.destroy();
            conclude();
          }
        });
        response.on("end", conclude);
        response.on("error", () => {
          conclude();
        });
      });
      const timer = setTimeout(() => {
        request.destroy();
        finish(`no answer within ${this.#timeoutMs} ms (SYNC_WEBHOOK_TIMEOUT_MS)`);
      }, this.#timeoutMs);
      const onAbort = () => {
        request.destroy();
        finish("stopping");
      };
      signal.addEventListener("abort", onAbort, { once: true });
      request.on("error", (error) => {
        finish(error.message);
      });
      request.end(payload);
    });
  }
}
