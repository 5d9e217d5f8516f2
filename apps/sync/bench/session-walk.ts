/**
 * The respondents of session-http.bench.ts: `workers` clients, each walking respondents through
 * sessions until `until` (performance.now()): `POST /v1/sessions`, the answers to each question
 * asked, the return from each survey offered (a terminate, so the session re-routes) and the read
 * of the next step, until the session is done. Every one of those calls is a step. The load runs
 * them in a process of its own (session-walk-load.ts); the calibration with one client runs them
 * beside the service, so that each step's PostgreSQL round trips can be counted at its driver.
 */
import { encryptionSigning, signUrl } from "@sds/routing";
import type { EncryptionSettings } from "@sds/schemas";

/** Where the walk goes, and as whom. */
export interface WalkTarget {
  /** sds-sync's API. */
  readonly url: string;
  /** Where its returns are received (`/v1/return/…`). */
  readonly outcomesUrl: string;
  readonly token: string;
  /** The account's OutgoingEncryption: returns are signed with it when it is enabled. */
  readonly encryption: EncryptionSettings;
}

/** A step by what it did: `start`, `return`, and `answer` or `read` with the kind of step it answered (`answer→survey`). */
export type StepKind = string;

/** What each step reports, and what is taken before it (the calibration's round-trip count). */
export interface StepObserver<Before> {
  before(): Before;
  after(kind: StepKind, milliseconds: number, before: Before): void;
}

/** What one walk did, besides what its observer saw. */
export interface WalkCounts {
  readonly sessions: number;
  readonly errors: number;
  readonly seconds: number;
}

interface Step {
  readonly kind: string;
  readonly qualificationId?: number;
  readonly type?: string;
  readonly options?: { code: string }[];
  readonly token?: string;
}
interface Session {
  readonly id: string;
  readonly next: Step;
}

/** Walks respondents (uids `bench-<prefix>-<worker>-<n>`) through sessions with `workers` clients until `until`. */
export async function walkSessions<Before>(
  target: WalkTarget,
  workers: number,
  until: number,
  prefix: string,
  observer: StepObserver<Before>,
): Promise<WalkCounts> {
  const headers = { authorization: `Bearer ${target.token}`, "content-type": "application/json" };
  const signing = encryptionSigning(target.encryption);
  const returnUrl = (token: string) => {
    const url = `${target.outcomesUrl}/v1/return/terminate?vq_token=${encodeURIComponent(token)}`;
    return signing === undefined ? url : signUrl(url, signing.key, signing.scheme);
  };
  let sessions = 0;
  let errors = 0;
  const call = async (kind: StepKind, path: string, body?: unknown): Promise<Session | undefined> => {
    const before = observer.before();
    const started = performance.now();
    const response = await fetch(`${target.url}${path}`, {
      headers,
      ...(body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const elapsed = performance.now() - started;
    if (!response.ok) {
      observer.after(kind, elapsed, before);
      if (errors++ < 3) console.error(`${path}: ${response.status} ${text.slice(0, 200)}`);
      return undefined;
    }
    const session = JSON.parse(text) as Session;
    observer.after(kind === "start" ? kind : `${kind}→${session.next.kind}`, elapsed, before);
    return session;
  };
  const worker = async (worker: number): Promise<void> => {
    for (let index = 0; performance.now() < until; index++) {
      let session = await call("start", "/v1/sessions", { uid: `bench-${prefix}-${worker}-${index}`, languageId: 3 });
      sessions++;
      for (let turn = 0; session !== undefined && turn < 12 && performance.now() < until; turn++) {
        const next: Step = session.next;
        if (next.kind === "question") {
          const answer =
            next.type === "numeric" ? ["34"] : next.type === "text" ? ["10001"] : [next.options?.[0]?.code ?? "1"];
          session = await call("answer", `/v1/sessions/${session.id}/answers`, {
            answers: { [String(next.qualificationId)]: answer },
          });
        } else if (next.kind === "survey") {
          const before = observer.before();
          const started = performance.now();
          const back = await fetch(returnUrl(next.token ?? ""), { redirect: "manual" });
          await back.arrayBuffer();
          observer.after("return", performance.now() - started, before);
          if (back.status !== 303 && errors++ < 3) console.error(`return: ${back.status}`);
          session = await call("read", `/v1/sessions/${session.id}`);
        } else break;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: workers }, (_, index) => worker(index)));
  return { sessions, errors, seconds: (performance.now() - started) / 1000 };
}

/** Step latencies in milliseconds: the count and percentiles. */
export class Latencies {
  readonly #values: number[] = [];

  add(milliseconds: number): void {
    this.#values.push(milliseconds);
  }

  get count(): number {
    return this.#values.length;
  }

  percentile(fraction: number): number {
    const sorted = [...this.#values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
  }
}
