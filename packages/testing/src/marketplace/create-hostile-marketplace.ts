import { signUrl } from "@sds/routing";
import { sendRawRequest } from "./send-raw-request.ts";
import type {
  HostileCallback,
  HostileMarketplace,
  HostileMarketplaceOptions,
  HostileRequest,
} from "./hostile-types.ts";
import type { RespondentOutcome } from "./types.ts";

/** A host no receiver is: where a replayed URL claims to have been signed for. */
const OTHER_HOST = "other-receiver.example";
/** The page a leaked callback URL is embedded in. */
const ATTACKER_ORIGIN = "https://attacker.example";
const BROWSER_USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
/** The key forged signatures use: not the account's. */
const ATTACKER_KEY = "attacker-key-not-the-accounts";

/** One variant of an attack, before it is sent. */
interface Planned {
  readonly variant: string;
  readonly description: string;
  readonly request: HostileRequest;
}

function otherOutcomeOf(outcome: RespondentOutcome): RespondentOutcome {
  return outcome === "terminate" ? "complete" : "terminate";
}

/** The path and query of an absolute URL, as text (no parsing: nothing is re-encoded). */
function targetOf(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "") || "/";
}

/** The URL without its scheme and `//`: `host:port/path?query`. */
function withoutScheme(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
}

/**
 * Creates a hostile marketplace that attacks an S2S outcome receiver: forged and replayed
 * callbacks (including the `Host: <signed URL without scheme>#` trick, which makes a receiver
 * that rebuilds the signed URL from `Host` verify one URL and act on another), callbacks before
 * any entry, outcome flips, browser-like callbacks, oversized and malformed tokens. Requests
 * go out over node:http(s) with the request target and `Host` exactly as planned. Each method
 * resolves to what was sent and the answer; assert that the receiver refused it and recorded
 * nothing. For hostile survey data (placeholders it cannot fill, script URLs) see
 * {@link hostileSurveyInits}.
 *
 * @throws RangeError when `receiverUrl` is not an absolute http(s) URL.
 * @example
 * ```ts
 * const hostile = createHostileMarketplace({ receiverUrl: "http://127.0.0.1:8787", signing: encryptionSigning(account.OutgoingEncryption) });
 * for (const attempt of await hostile.forgedCallbacks({ token: "t-1" })) expect(attempt.response?.status).toBe(403);
 * const [exact, ...replays] = await hostile.replayedCallbacks({ token: "t-1", otherToken: "t-2" });
 * for (const attempt of replays) expect(attempt.refused).toBe(true);
 * ```
 */
export function createHostileMarketplace(options: HostileMarketplaceOptions): HostileMarketplace {
  if (!URL.canParse(options.receiverUrl)) throw new RangeError("receiverUrl must be an absolute http or https URL");
  const receiver = new URL(options.receiverUrl);
  if (receiver.protocol !== "http:" && receiver.protocol !== "https:")
    throw new RangeError("receiverUrl must be an absolute http or https URL");
  const base = `${receiver.origin}${receiver.pathname.replace(/\/+$/, "")}`;
  const tokenParameter = options.tokenParameter ?? "vq_token";
  const timeoutMs = options.timeoutMs ?? 5000;
  const signing = options.signing;
  let fresh = 0;

  const callbackUrlWithRawToken = (outcome: RespondentOutcome, rawToken: string, prefix = base) =>
    `${prefix}/v1/outcomes/${outcome}?${tokenParameter}=${rawToken}`;
  const callbackUrl = (outcome: RespondentOutcome, token: string) =>
    callbackUrlWithRawToken(outcome, encodeURIComponent(token));
  const sign = (url: string) => (signing === undefined ? url : signUrl(url, signing.key, signing.scheme));
  const forge = (url: string, key = ATTACKER_KEY) => signUrl(url, key, signing?.scheme);
  const parameter = () => signing?.scheme?.parameter ?? "hash";
  /** The value of the signature parameter, the last one of a signed URL. */
  const signatureOf = (signedUrl: string) => /[?&][^?&=]+=([^&#]*)$/.exec(signedUrl)?.[1] ?? "";

  async function send(
    request: HostileRequest,
    variant = "custom",
    description = "a request sent as given",
  ): Promise<HostileCallback> {
    const sent = { ...request, host: request.host ?? receiver.host, origin: receiver.origin };
    const outcome = await sendRawRequest(receiver, sent, timeoutMs);
    const status = outcome.response?.status;
    return {
      variant,
      description,
      request: sent,
      response: outcome.response,
      error: outcome.error,
      refused: status !== undefined && status >= 400 && status < 500,
    };
  }

  async function sendAll(planned: readonly Planned[]): Promise<HostileCallback[]> {
    const attempts: HostileCallback[] = [];
    // One after the other: a receiver's answer to one variant must not depend on a race with another.
    for (const item of planned) attempts.push(await send(item.request, item.variant, item.description));
    return attempts;
  }

  const get = (url: string, extra: Partial<HostileRequest> = {}): HostileRequest => ({
    method: "GET",
    target: targetOf(url),
    ...extra,
  });

  return {
    callbackUrl,
    sign,
    send,

    genuineCallback({ token, outcome = "complete" }) {
      return send(
        get(sign(callbackUrl(outcome, token))),
        "genuine",
        "the callback as the real marketplace sends it: accepted",
      );
    },

    forgedCallbacks({ token, outcome = "complete" }) {
      const url = callbackUrl(outcome, token);
      const genuine = sign(url);
      const name = parameter();
      const anotherUrl = callbackUrl(outcome, `${token}-other`);
      return sendAll([
        { variant: "unsigned", description: "no signature parameter: refused (403)", request: get(url) },
        {
          variant: "wrong-key",
          description: "a well-formed signature made with another key: refused (403)",
          request: get(forge(url)),
        },
        {
          variant: "garbage-signature",
          description: "a signature that is not a digest: refused (403)",
          request: get(`${url}&${name}=not-a-digest!`),
        },
        {
          variant: "empty-signature",
          description: "an empty signature: refused (403)",
          request: get(`${url}&${name}=`),
        },
        {
          variant: "truncated-signature",
          description: "the genuine signature cut short: refused (403)",
          request: get(genuine.slice(0, -4)),
        },
        {
          variant: "parameter-after-signature",
          description:
            "the genuine URL with a parameter after the signature, which the signature does not cover: refused (403)",
          request: get(`${genuine}&${tokenParameter}=${encodeURIComponent(`${token}-other`)}`),
        },
        {
          variant: "signature-of-another-url",
          description: "a genuine signature of another token's URL, attached to this one: refused (403)",
          request: get(`${url}&${name}=${signatureOf(signing === undefined ? forge(anotherUrl) : sign(anotherUrl))}`),
        },
        {
          variant: "signature-parameter-case",
          description: "the genuine signature under the parameter name in upper case: refused (403)",
          request: get(
            genuine.replace(
              new RegExp(`([?&])${name}=([^&]*)$`),
              (_all, separator: string, value: string) => `${separator}${name.toUpperCase()}=${value}`,
            ),
          ),
        },
      ]);
    },

    replayedCallbacks({ token, outcome = "complete", otherToken, otherOutcome = otherOutcomeOf(outcome) }) {
      const genuine = sign(callbackUrl(outcome, token));
      const claimed = callbackUrl(otherOutcome, otherToken);
      const port = receiver.port === "" ? "" : `:${receiver.port}`;
      const otherHostUrl = sign(
        callbackUrlWithRawToken(
          otherOutcome,
          encodeURIComponent(otherToken),
          `${receiver.protocol}//${OTHER_HOST}${port}${receiver.pathname.replace(/\/+$/, "")}`,
        ),
      );
      const tokenPattern = new RegExp(`([?&]${tokenParameter}=)[^&]*`);
      const encodedOutcome = `%${otherOutcome.charCodeAt(0).toString(16).toUpperCase()}${otherOutcome.slice(1)}`;
      return sendAll([
        {
          variant: "exact",
          description: "the genuine callback sent again: a duplicate (200, nothing new recorded)",
          request: get(genuine),
        },
        {
          variant: "other-token",
          description: "the genuine signature with another token in the query: refused (403)",
          request: get(genuine.replace(tokenPattern, `$1${encodeURIComponent(otherToken)}`)),
        },
        {
          variant: "other-outcome",
          description: "the genuine signature on another outcome's path: refused (403)",
          request: get(genuine.replace(`/v1/outcomes/${outcome}?`, `/v1/outcomes/${otherOutcome}?`)),
        },
        {
          variant: "signed-for-other-host",
          description: `a callback validly signed for ${OTHER_HOST}, sent here with this receiver's Host: refused (403)`,
          request: get(otherHostUrl),
        },
        {
          variant: "other-host-header",
          description: `the same, sent with Host: ${OTHER_HOST}${port}: refused by a receiver that checks the signature against its own public URL; accepted by one that trusts Host`,
          request: get(otherHostUrl, { host: `${OTHER_HOST}${port}` }),
        },
        {
          variant: "host-header-fragment",
          description:
            "the other outcome and token in the request target, and Host: <genuine URL without scheme>#, so that http:// + Host + target is the genuine URL followed by a fragment, which verifiers ignore: refused (400 or 403), never recorded",
          request: get(claimed, { host: `${withoutScheme(genuine)}#` }),
        },
        {
          variant: "post-with-other-token",
          description:
            "the genuine URL sent as POST, with a body claiming the other token and outcome: the query's token and path's outcome count, or it is refused; the body's never",
          request: {
            method: "POST",
            target: targetOf(genuine),
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: `${tokenParameter}=${encodeURIComponent(otherToken)}&outcome=${otherOutcome}`,
          },
        },
        {
          variant: "encoded-path",
          description:
            "the genuine signature on the other outcome's path with its first letter percent-encoded: refused (403 or 404), never recorded as that outcome",
          request: get(genuine.replace(`/v1/outcomes/${outcome}?`, `/v1/outcomes/${encodedOutcome}?`)),
        },
      ]);
    },

    callbackBeforeEntry(target = {}) {
      fresh += 1;
      const token = target.token ?? `never-issued-${Date.now().toString(36)}-${fresh}`;
      return send(
        get(sign(callbackUrl(target.outcome ?? "complete", token))),
        "before-entry",
        "a validly signed outcome for a token no entry link was issued for: refused or not counted",
      );
    },

    outcomeFlips(token, sequence = ["complete", "terminate", "complete"]) {
      return sendAll(
        sequence.map((outcome, index) => ({
          variant: `flip-${index + 1}-${outcome}`,
          description:
            "validly signed outcomes for one token, one after the other: the receiver decides which counts, and says so",
          request: get(sign(callbackUrl(outcome, token))),
        })),
      );
    },

    browserCallbacks({ token, outcome = "complete" }) {
      const genuine = sign(callbackUrl(outcome, token));
      const page = `${ATTACKER_ORIGIN}/leaked.html`;
      const common = { "user-agent": BROWSER_USER_AGENT, "sec-fetch-site": "cross-site", referer: page };
      return sendAll([
        {
          variant: "img",
          description:
            "as an <img src> on another site loads it: refused (a receiver for servers has no reason to answer browsers)",
          request: get(genuine, {
            headers: {
              ...common,
              accept: "image/avif,image/webp,image/apng,image/*,*/*;q=0.8",
              "sec-fetch-mode": "no-cors",
              "sec-fetch-dest": "image",
            },
          }),
        },
        {
          variant: "no-cors-post",
          description: "as fetch(url, { method: 'POST', mode: 'no-cors' }) from another site sends it: refused",
          request: {
            method: "POST",
            target: targetOf(genuine),
            headers: {
              ...common,
              origin: ATTACKER_ORIGIN,
              "content-type": "text/plain;charset=UTF-8",
              "sec-fetch-mode": "no-cors",
              "sec-fetch-dest": "empty",
            },
            body: "",
          },
        },
        {
          variant: "form-post",
          description: "as a <form method=post> on another site submits it: refused",
          request: {
            method: "POST",
            target: targetOf(genuine),
            headers: {
              ...common,
              origin: ATTACKER_ORIGIN,
              "content-type": "application/x-www-form-urlencoded",
              "sec-fetch-mode": "navigate",
              "sec-fetch-dest": "document",
              "sec-fetch-user": "?1",
            },
            body: "",
          },
        },
        {
          variant: "navigation",
          description: "as a click on a link to it from another site opens it: refused",
          request: get(genuine, {
            headers: {
              ...common,
              accept: "text/html,*/*;q=0.8",
              "sec-fetch-mode": "navigate",
              "sec-fetch-dest": "document",
              "sec-fetch-user": "?1",
              "upgrade-insecure-requests": "1",
            },
          }),
        },
        {
          variant: "opaque-origin",
          description: "a POST from a sandboxed frame or data: page (Origin: null): refused",
          request: {
            method: "POST",
            target: targetOf(genuine),
            headers: {
              ...common,
              origin: "null",
              "sec-fetch-mode": "no-cors",
              "sec-fetch-dest": "empty",
              "content-type": "text/plain;charset=UTF-8",
            },
            body: "",
          },
        },
      ]);
    },

    oversizedToken({ length = 8000, outcome = "complete" } = {}) {
      if (!Number.isSafeInteger(length) || length < 1)
        throw new RangeError(`length must be a positive integer, got ${String(length)}`);
      return send(
        get(sign(callbackUrl(outcome, "x".repeat(length)))),
        "oversized-token",
        `a validly signed callback whose token is ${length} characters: refused (400, 414 or 431), never recorded`,
      );
    },

    malformedTokens(outcome = "complete") {
      const signed = (rawToken: string) => get(sign(callbackUrlWithRawToken(outcome, rawToken)));
      const plain = `${base}/v1/outcomes/${outcome}`;
      return sendAll([
        {
          variant: "nul-byte",
          description: "a NUL byte in the token (%00): refused (400)",
          request: signed("tok%00en"),
        },
        {
          variant: "lone-high-surrogate",
          description:
            "a lone high surrogate, U+D800 as UTF-8 (%ED%A0%80), which no decoder accepts: refused (400), not a 500",
          request: signed("tok%ED%A0%80en"),
        },
        {
          variant: "lone-low-surrogate",
          description: "a lone low surrogate, U+DC00 as UTF-8 (%ED%B0%80): refused (400)",
          request: signed("tok%ED%B0%80en"),
        },
        {
          variant: "invalid-utf8",
          description: "a byte that is not UTF-8 (%FF): refused (400)",
          request: signed("tok%FFen"),
        },
        {
          variant: "cut-escape",
          description: "a percent escape cut short (%E2%82): refused (400)",
          request: signed("tok%E2%82"),
        },
        {
          variant: "bare-percent",
          description: "a % with no hex digits after it: refused (400)",
          request: signed("tok%"),
        },
        {
          variant: "crlf",
          description: "CR LF in the token (%0D%0A), which would split a log line: refused (400)",
          request: signed("tok%0D%0Aforged-log-line"),
        },
        { variant: "empty-token", description: "an empty token: refused (400)", request: signed("") },
        {
          variant: "missing-token",
          description: "no token parameter at all: refused (400)",
          request: get(sign(plain)),
        },
        {
          variant: "repeated-token",
          description: "the token parameter twice, with different values: refused (400)",
          request: get(sign(`${plain}?${tokenParameter}=first&${tokenParameter}=second`)),
        },
      ]);
    },
  } satisfies HostileMarketplace;
}
