import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { expect } from "vitest";

/** A Standard Webhooks secret for tests. */
export const TEST_WEBHOOK_SECRET = `whsec_${Buffer.from("a test secret of thirty-two bytes").toString("base64")}`;

/** One POST the receiver got. */
export interface ReceivedWebhook {
  readonly id: string;
  readonly type: string;
  readonly body: { readonly type: string; readonly timestamp: string; readonly data: Record<string, unknown> };
  /** Whether the signature verified with {@link TEST_WEBHOOK_SECRET}. */
  readonly verified: boolean;
  /** What the receiver answered (0: no answer, it hung up or let the request time out). */
  readonly answered: number;
}

/** How the receiver treats one request: answer with a status after a delay, or never answer. */
export type ReceiverAnswer = { readonly status: number; readonly delayMs?: number } | "hang";

/** A webhook receiver a test runs: it verifies each signature and records every attempt. */
export interface WebhookReceiver {
  readonly url: string;
  /** Every attempt, in arrival order (retries included). */
  readonly received: ReceivedWebhook[];
  /** The ids it acknowledged (2xx), in arrival order: what a consumer de-duplicating by webhook-id acts on. */
  acknowledgedIds(): string[];
  /** Stops listening (connections refused) until {@link listenAgain}. */
  pause(): Promise<void>;
  listenAgain(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A hostile receiver's answers, by the event's sequence (`outcome-<n>`), for a sender whose
 * timeout is above `slowMs`: a 500 on the first attempt of every 29th event (and on the second
 * of every 58th), no answer at all on the first attempt of every 31st (the sender's timeout
 * ends it), an answer after `slowMs` for every 7th, and a few milliseconds for the rest. Shares
 * small enough that a test of a few hundred events, each failure costing the sender a backoff of
 * up to a second, ends within a minute.
 */
export function hostileAnswers(slowMs: number): (id: string, attempt: number) => ReceiverAnswer {
  return (id, attempt) => {
    const sequence = Number(id.split("-")[1]);
    if (sequence % 29 === 0 && (attempt === 1 || (attempt === 2 && sequence % 58 === 0))) return { status: 500 };
    if (sequence % 31 === 0 && attempt === 1) return "hang";
    return { status: 200, delayMs: sequence % 7 === 0 ? slowMs : sequence % 3 };
  };
}

/**
 * Asserts the receiver's hostility was met, not dodged: some deliveries were answered with a 500
 * and some left unanswered past the timeout.
 */
export function expectHostilityMet(received: readonly ReceivedWebhook[]): void {
  expect(received.filter((entry) => entry.answered >= 500).length, "500s answered").toBeGreaterThan(0);
  expect(
    received.filter((entry) => entry.answered === 0).length,
    "requests left unanswered past the timeout",
  ).toBeGreaterThan(0);
}

/** Options of {@link startWebhookReceiver}. */
export interface WebhookReceiverOptions {
  /** How to answer attempt `attempt` (1 for the first) of the event with `id`. @default 204 at once */
  readonly answer?: (id: string, attempt: number) => ReceiverAnswer;
  /** A TLS key and certificate: https instead of http. */
  readonly tls?: { readonly key: string; readonly cert: string };
}

/** Starts a receiver on 127.0.0.1, a free port. */
export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const verifier = new Webhook(TEST_WEBHOOK_SECRET);
  const received: ReceivedWebhook[] = [];
  const attempts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const payload = Buffer.concat(chunks).toString("utf8");
      const id = String(request.headers["webhook-id"]);
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      let verified = true;
      try {
        verifier.verify(payload, request.headers as Record<string, string>);
      } catch {
        verified = false;
      }
      const body = JSON.parse(payload) as ReceivedWebhook["body"];
      const answer = options.answer?.(id, attempt) ?? { status: 204 };
      const record = (answered: number) => received.push({ id, type: body.type, body, verified, answered });
      if (answer === "hang") {
        record(0);
        hanging.add(response);
        response.on("close", () => hanging.delete(response));
        return;
      }
      setTimeout(() => {
        record(answer.status);
        response.writeHead(answer.status).end();
      }, answer.delayMs ?? 0);
    });
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, handle) : createHttpServer(handle);
  const listen = (port: number) =>
    new Promise<number>((resolve) =>
      server.listen(port, "127.0.0.1", () => {
        resolve((server.address() as AddressInfo).port);
      }),
    );
  const port = await listen(0);
  const stopListening = async () => {
    for (const response of hanging) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  };
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}/hooks`,
    received,
    acknowledgedIds: () =>
      received.filter((entry) => entry.answered >= 200 && entry.answered < 300).map((entry) => entry.id),
    pause: stopListening,
    listenAgain: async () => {
      await listen(port);
    },
    close: async () => {
      if (server.listening) await stopListening();
    },
  };
}
