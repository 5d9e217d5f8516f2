// @ts-check
/**
 * The status page's script (served as `/status.js`, an ES module): plain DOM, no framework, no
 * build step. Type-checked by `tsc` (JSDoc types, lib DOM: `./tsconfig.json`) and linted by ESLint.
 *
 * It reads the service like any client: `/readyz` (open) every 5 s for the health band, and, with
 * the token from session storage as a Bearer header (asked for on the first 401),
 * `/v1/sync/status` every 5 s and `/v1/changes` by long-polling. Every text from the service
 * reaches the page through `textContent` (never markup), so hostile data stays text.
 *
 * One file on purpose: the page's assets are a fixed set of routes (`/`, `/status.js`,
 * `/status.css`), and a second module would need a route of its own.
 */

/**
 * @typedef {{ ready?: boolean, reason?: string, lastSuccessAt?: string, ageSeconds?: number,
 *   staleAfterSeconds?: number, closuresHeld?: number, warnings?: string[] }} Readiness
 * @typedef {{ entries?: number, pending?: number, completes?: number, terminates?: number,
 *   overquotas?: number, securityTerminates?: number, reversals?: number, earnings?: number,
 *   conversion?: number, earningsPerEntry?: number }} Window
 * @typedef {"last24h" | "last7d" | "lifetime"} WindowName
 * @typedef {{ surveyId: number, last24h?: Window, last7d?: Window, lifetime?: Window }} SurveyWindows
 * @typedef {{ matcher?: { surveys?: number, sequence?: number },
 *   account?: { fetchedAt?: string | null, entryLinksSigned?: boolean | null, outcomesVerified?: boolean | null, problem?: string | null },
 *   warnings?: string[], outcomes?: Record<string, number>, orphans?: { tokens?: number },
 *   refused?: { total?: number, byReason?: Record<string, number> },
 *   totals?: { last24h?: Window, last7d?: Window, lifetime?: Window },
 *   surveys?: SurveyWindows[],
 *   inventoryData?: { groups?: { surveys?: number, unavailable?: number, pending?: number }, recontact?: { studies?: number, unavailable?: number },
 *     studyTypesPending?: number },
 *   gate?: { refusals?: Record<string, number> } }} LoopStatus
 * @typedef {{ id?: number, status: string, startedAt: string, durationMs?: number, error?: string | null,
 *   counts?: Record<string, number> }} Run
 * @typedef {{ replica: { leader: boolean, running: boolean, consecutiveFailures?: number, nextRunAt?: string | null,
 *     leaderId?: string, leaderAddress?: string }, currency?: string,
 *   closures: { count: number, sample: number[], absentCycles?: number, confirmCycles?: number, confirmed?: number } | null,
 *   store: { kind: string, live: number, closed: number, quarantined?: number, latestSequence: number },
 *   languages?: { languageId: number, live: number, closed: number }[], intervalSeconds?: number, runs?: Run[],
 *   collections?: { name: string, fetchedAt: string }[],
 *   quarantine?: { key: string, surveyId: number | null, source: string, timesSeen: number, lastSeenAt?: string }[],
 *   loop?: LoopStatus }} SyncStatus
 * @typedef {{ sequence: number, type: string, surveyId: number, occurredAt: string }} Change
 */

const TOKEN_KEY = "sds-sync-token";
const REFRESH_MS = 5000;
const DASH = "—";
/** @type {WindowName[]} */
const WINDOWS = ["last24h", "last7d", "lifetime"];

/** The service refused the token (401). */
class Unauthorized extends Error {}
/** The token cannot be sent: a header holds printable ASCII only (a pasted `é` made fetch throw). */
class UnusableToken extends Error {}

/** @type {Map<string, string>} */
const languageNames = new Map();
/** @type {number | null} */
let feedAfter = null;
/** @type {Change[]} */
let feedItems = [];
let waitingForToken = false;
let feedRunning = false;
/** @type {{ status: number, body: Readiness } | null} */
let lastReadiness = null;
/** @type {SyncStatus | null} */
let lastStatus = null;
/** Why `/v1/sync/status` could not be read last time, if it could not. */
let statusProblem = "";

// ---------------------------------------------------------------------------------------------
// The DOM and formatting

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} type
 * @returns {T}
 */
function byId(id, type) {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`#${id} is missing from the page`);
  return node;
}
/** @param {string} id */
const html = (id) => byId(id, HTMLElement);

/**
 * @param {string} name
 * @param {string | number} [text]
 * @param {string} [className]
 */
function element(name, text, className) {
  const node = document.createElement(name);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

/**
 * @param {string} name
 * @param {Record<string, string | number>} [attributes]
 */
function svg(name, attributes = {}) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}

/** @param {unknown} value @returns {value is number} */
const isNumber = (value) => typeof value === "number" && Number.isFinite(value);
/** @param {unknown} value */
const count = (value) => (isNumber(value) ? value.toLocaleString("en") : DASH);
/** The currency of the surveys' `Cpi` (`SYNC_CURRENCY`), as the service reports it. */
let currency = "USD";
/** @param {unknown} value Money in the surveys' `Cpi` currency, with its symbol (`$1,234.50`). */
function money(value) {
  if (!isNumber(value)) return DASH;
  try {
    return value.toLocaleString("en", { style: "currency", currency });
  } catch {
    return `${value.toLocaleString("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency}`;
  }
}
/**
 * @param {unknown} value
 * @param {string} one
 * @param {string} many
 */
const plural = (value, one, many) => `${count(value)} ${value === 1 ? one : many}`;
/** @param {unknown} value A share (0..1). */
const percent = (value) =>
  isNumber(value) ? `${(value * 100).toLocaleString("en", { maximumFractionDigits: 1 })} %` : DASH;

/**
 * A time with its date and zone, in UTC like the service's logs: `2026-11-24 20:58:05 UTC`.
 * @param {string | null | undefined} iso
 */
function dateTime(iso) {
  const date = iso ? new Date(iso) : undefined;
  if (!date || Number.isNaN(date.getTime())) return DASH;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/**
 * A time without its year and seconds, for narrow charts: `11-24 20:58 UTC`.
 * @param {string | null | undefined} iso
 */
function shortDateTime(iso) {
  const full = dateTime(iso);
  return full === DASH ? DASH : `${full.slice(5, 16)} UTC`;
}

/** @param {number} seconds */
function duration(seconds) {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 90) return `${whole} s`;
  if (whole < 90 * 60) return `${Math.round(whole / 60)} min`;
  if (whole < 48 * 3600) return `${Math.floor(whole / 3600)} h ${Math.round((whole % 3600) / 60)} min`;
  return `${Math.round(whole / 86_400)} days`;
}

/** @param {string | null | undefined} iso */
function sinceNow(iso) {
  const time = iso ? new Date(iso).getTime() : Number.NaN;
  if (Number.isNaN(time)) return "";
  const seconds = (Date.now() - time) / 1000;
  return seconds >= 0 ? `${duration(seconds)} ago` : `in ${duration(-seconds)}`;
}

/**
 * Sets a fact of a `.facts` list: its text, its tone, and a smaller second line (a date) if given.
 * @param {string} id
 * @param {string} text
 * @param {"" | "bad" | "warning"} [tone]
 * @param {string} [detail]
 */
function fact(id, text, tone = "", detail = "") {
  const target = html(id);
  target.replaceChildren(text, ...(detail === "" ? [] : [element("span", detail, "detail")]));
  target.className = tone;
}

/**
 * Fills a table body; every cell carries its column's name, which a phone shows beside the value.
 * @param {string} tableId
 * @param {{ text: string, className?: string }[][]} rows
 */
function fillRows(tableId, rows) {
  const table = byId(tableId, HTMLTableElement);
  const labels = [...table.querySelectorAll("thead th")].map((cell) => cell.textContent);
  const body = table.tBodies[0];
  if (!body) return;
  body.replaceChildren(
    ...rows.map((cells) => {
      const row = element("tr");
      cells.forEach((cell, index) => {
        const td = element("td", cell.text, cell.className);
        td.dataset["label"] = labels[index] ?? "";
        row.append(td);
      });
      return row;
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// The token and the API

/**
 * Why a token cannot be used, or undefined when it can. A header value holds printable ASCII
 * only, and the service reads the token up to the first space.
 * @param {string} token
 */
function tokenProblem(token) {
  if (token === "") return "Enter the API token.";
  if (!/^[\x21-\x7E]+$/.test(token))
    return "That token holds a character an HTTP header cannot carry (only printable ASCII, no spaces or accents). Check what was pasted.";
  return undefined;
}

/** The token of this tab, if one was given. */
function storedToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/**
 * @param {string} path
 * @param {{ token?: boolean }} [options]
 * @returns {Promise<{ status: number, body: unknown }>}
 */
async function api(path, options = {}) {
  const token = options.token === false ? null : storedToken();
  if (token !== null && tokenProblem(token) !== undefined) throw new UnusableToken(tokenProblem(token));
  const response = await fetch(path, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    cache: "no-store",
  });
  if (response.status === 401) throw new Unauthorized();
  /** @type {unknown} */
  const raw = await response.json();
  const body = /** @type {{ error?: { code?: string, message?: string } }} */ (raw);
  // A router's token (SYNC_ROUTER_TOKEN) opens no operator route: ask for the API token instead.
  if (response.status === 403 && body.error?.code === "insufficient_scope")
    throw new UnusableToken("That token only opens the router's routes; the status needs SYNC_API_TOKEN.");
  if (!response.ok && response.status !== 410 && response.status !== 503)
    throw new Error(`${path} answered ${response.status}: ${body.error?.message ?? ""}`);
  return { status: response.status, body };
}

/** @param {string} message */
function askForToken(message) {
  waitingForToken = true;
  html("status").hidden = true;
  byId("token-form", HTMLFormElement).hidden = false;
  html("forget").hidden = storedToken() === null;
  html("token-error").textContent = message;
  byId("token", HTMLInputElement).focus();
}

/**
 * A failure of a call that needed the token: asks for it again when the token is at fault.
 * @param {unknown} error
 * @returns {boolean} whether it was the token's fault
 */
function tokenFailure(error) {
  if (error instanceof Unauthorized) {
    const hadToken = storedToken() !== null;
    sessionStorage.removeItem(TOKEN_KEY);
    askForToken(hadToken ? "That token was refused." : "");
    return true;
  }
  if (error instanceof UnusableToken) {
    sessionStorage.removeItem(TOKEN_KEY);
    askForToken(error.message);
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Health: the first screen

/** What the operator must hear of first: readiness, failures, warnings. */
function renderHealth() {
  const readiness = lastReadiness;
  const status = lastStatus;
  const failures = status?.replica.consecutiveFailures;
  const warnings = collectWarnings(readiness?.body, status?.loop);
  const lastFailure = status?.runs?.find((run) => run.status === "failed");
  const failingNow = isNumber(failures) && failures > 0;

  /** @type {"ok" | "warn" | "down"} */
  let state;
  let headline;
  /** @type {string[]} */
  const detail = [];
  if (readiness === null) {
    state = "down";
    headline = "No answer from the service";
    detail.push("/readyz could not be read; retrying every 5 s.");
  } else if (readiness.body.ready !== true) {
    state = "down";
    headline = `Not ready: ${readiness.body.reason ?? "no reason given"}`;
  } else {
    state = warnings.length > 0 || failingNow || (readiness.body.closuresHeld ?? 0) > 0 ? "warn" : "ok";
    headline = failingNow
      ? `Ready, but the last ${count(failures)} cycle${failures === 1 ? "" : "s"} failed`
      : warnings.length > 0
        ? "Ready, with warnings"
        : "Ready";
  }
  if (readiness?.body.lastSuccessAt) {
    const limit = isNumber(readiness.body.staleAfterSeconds)
      ? `; not ready once older than ${duration(readiness.body.staleAfterSeconds)}`
      : "";
    detail.push(
      `Last successful sync ${dateTime(readiness.body.lastSuccessAt)} (${sinceNow(readiness.body.lastSuccessAt)}${limit}).`,
    );
  }
  if (lastFailure && (state === "down" || failingNow))
    detail.push(`Last failure ${dateTime(lastFailure.startedAt)}: ${lastFailure.error ?? "no message"}`);
  if (statusProblem !== "") detail.push(statusProblem);

  html("health").className = `state-${state}`;
  document.title = `${state === "down" ? "NOT READY" : state === "warn" ? "Ready, with warnings" : "Ready"} · sds-sync`;
  html("health-headline").textContent = headline;
  html("health-detail").textContent = detail.join(" ");
  const list = html("warnings");
  list.replaceChildren(...warnings.map((warning) => element("li", warning)));
  list.hidden = warnings.length === 0;

  const success = readiness?.body.lastSuccessAt;
  fact(
    "fact-last-success",
    success ? sinceNow(success) : "never",
    state === "down" ? "bad" : "",
    success ? dateTime(success) : "",
  );
  fact("fact-failures", count(failures), failingNow ? "bad" : "");
  const replica = status?.replica;
  fact(
    "fact-role",
    replica ? `${replica.leader ? "Leader" : "Follower"}${replica.running ? ", syncing now" : ""}` : DASH,
    "",
    !replica || replica.leader
      ? ""
      : replica.leaderId === undefined
        ? "leader not known"
        : `leader: ${replica.leaderId}${replica.leaderAddress === undefined ? "" : ` at ${replica.leaderAddress}`}`,
  );
  const next = status?.replica.nextRunAt;
  fact("fact-next-run", next ? sinceNow(next) : DASH, "", next ? dateTime(next) : "");
  const held = status ? (status.closures?.count ?? 0) : readiness?.body.closuresHeld;
  fact("fact-closures", count(held), isNumber(held) && held > 0 ? "warning" : "");
  const quarantined = status?.store.quarantined;
  fact("fact-quarantine", count(quarantined), isNumber(quarantined) && quarantined > 0 ? "warning" : "");
  const account = status?.loop?.account;
  const verified = account?.outcomesVerified;
  const signed = account?.entryLinksSigned;
  fact(
    "fact-signing",
    verified === true ? "Signature verified" : verified === false ? "Accepted unsigned" : DASH,
    verified === false ? "warning" : "",
    signed === true ? "entry links signed" : signed === false ? "entry links unsigned" : "",
  );
}

/**
 * The warnings of `/readyz` and of the loop, once each; before the loop listed its own, the page
 * says what the account's settings imply.
 * @param {Readiness | undefined} readiness
 * @param {LoopStatus | undefined} loop
 */
function collectWarnings(readiness, loop) {
  const warnings = new Set([...(readiness?.warnings ?? []), ...(loop?.warnings ?? [])]);
  if (loop?.account?.problem) warnings.add(loop.account.problem);
  if (readiness?.warnings === undefined && loop?.warnings === undefined && loop?.account?.outcomesVerified === false) {
    warnings.add(
      "Outcomes are accepted unsigned (the account's OutgoingEncryption is off): anyone who knows a token can record an outcome.",
    );
  }
  return [...warnings];
}

// ---------------------------------------------------------------------------------------------
// Money: the respondent loop

/**
 * The loop's surveys (`LoopStatus` of `@sds/sync-client`: every window of each).
 * @param {LoopStatus} loop
 * @returns {SurveyWindows[]}
 */
function loopSurveys(loop) {
  return Array.isArray(loop.surveys) ? loop.surveys : [];
}

/**
 * The sum of windows, field by field (a field missing from one is missing from the sum).
 * @param {(Window | undefined)[]} windows
 * @returns {Window | undefined}
 */
function sumWindows(windows) {
  // No survey listed: no entry was issued yet.
  if (windows.length === 0) return { entries: 0, completes: 0, earnings: 0, conversion: 0, earningsPerEntry: 0 };
  if (windows.some((window) => window === undefined)) return undefined;
  /** @type {(keyof Window)[]} */
  const fields = [
    "entries",
    "pending",
    "completes",
    "terminates",
    "overquotas",
    "securityTerminates",
    "reversals",
    "earnings",
  ];
  /** @type {Window} */
  const sum = {};
  for (const field of fields) {
    const values = windows.map((window) => window?.[field]);
    if (values.every(isNumber)) sum[field] = values.reduce((total, value) => total + value, 0);
  }
  if (isNumber(sum.entries) && isNumber(sum.completes))
    sum.conversion = sum.entries === 0 ? 0 : sum.completes / sum.entries;
  if (isNumber(sum.entries) && isNumber(sum.earnings))
    sum.earningsPerEntry = sum.entries === 0 ? 0 : sum.earnings / sum.entries;
  return sum;
}

/**
 * The quality gate's refusals by code (docs/quality-gate.md), all replicas together.
 * @param {LoopStatus | undefined} loop
 */
function renderGate(loop) {
  const refusals = Object.entries(loop?.gate?.refusals ?? {}).filter(([, value]) => isNumber(value));
  const total = refusals.reduce((sum, [, value]) => sum + value, 0);
  const refused = refusals.filter(([, value]) => value > 0).map(([code, value]) => `${code} ${count(value)}`);
  html("gate-refusals").textContent =
    loop?.gate === undefined
      ? "The quality gate does not report on this service."
      : `Respondents refused: ${count(total)}${refused.length > 0 ? ` (${refused.join(", ")})` : ""}.`;
}

/** @param {LoopStatus | undefined} loop */
function renderMoney(loop) {
  const surveys = loop ? loopSurveys(loop) : [];
  /** @type {Record<WindowName, Window | undefined>} */
  const totals = {
    last24h: loop?.totals?.last24h,
    last7d: loop?.totals?.last7d,
    lifetime:
      loop?.totals?.lifetime ??
      (loop?.totals === undefined ? sumWindows(surveys.map((survey) => survey.lifetime)) : undefined),
  };
  html("money-note").textContent = loop
    ? `Entries issued through sds-sync (POST /v1/entry-links) and the outcomes their respondents reached; money in ${currency}, the surveys' CPI currency (SYNC_CURRENCY).${loop.totals ? "" : " Windows of 24 h and 7 days appear once the service reports them."}`
    : "The respondent loop does not report on this service.";
  /** @type {[string, (window: Window) => string][]} */
  const measures = [
    ["Entries", (window) => count(window.entries)],
    ["Pending", (window) => count(window.pending)],
    ["Completes", (window) => count(window.completes)],
    ["Conversion", (window) => percent(window.conversion)],
    ["Earnings", (window) => money(window.earnings)],
    ["Earnings per entry", (window) => money(window.earningsPerEntry)],
    ["Reversals", (window) => count(window.reversals)],
  ];
  fillRows(
    "money-windows",
    measures.map(([name, show]) => [
      { text: name },
      ...WINDOWS.map((window) => ({ text: totals[window] ? show(totals[window]) : DASH, className: "number" })),
    ]),
  );

  const week = totals.last7d;
  const reversals = week?.reversals;
  const completes = week?.completes;
  fact(
    "fact-reversal-rate",
    isNumber(reversals) && isNumber(completes)
      ? `${percent(reversals + completes === 0 ? 0 : reversals / (reversals + completes))} of completes`
      : DASH,
  );
  const recorded = Object.values(loop?.outcomes ?? {}).filter(isNumber);
  const recordedTotal = recorded.reduce((total, value) => total + value, 0);
  const refused = loop?.refused?.total;
  if (isNumber(refused)) {
    const reasons = Object.entries(loop?.refused?.byReason ?? {}).map(
      ([reason, times]) => `${reason.replaceAll("_", " ")} ${count(times)}`,
    );
    const share = refused + recordedTotal === 0 ? 0 : refused / (refused + recordedTotal);
    fact(
      "fact-refused",
      `${count(refused)} (${percent(share)} of callbacks)${reasons.length > 0 ? `: ${reasons.join(", ")}` : ""}`,
      refused > 0 ? "warning" : "",
    );
  } else fact("fact-refused", DASH);
  const orphans = loop?.orphans?.tokens;
  fact("fact-orphans", count(orphans), isNumber(orphans) && orphans > 0 ? "warning" : "");
  // Transitions, not entries: an outcome corrected later (a reversal, a reconciliation) counts again.
  fact(
    "fact-outcomes",
    loop?.outcomes
      ? Object.entries(loop.outcomes)
          .map(([kind, times]) => `${kind} ${count(times)}`)
          .join(", ")
      : DASH,
    "",
    loop?.outcomes
      ? `every outcome an entry reached, each later change counted again; ${plural(totals.lifetime?.entries, "entry", "entries")} in all`
      : "",
  );
  fact(
    "fact-earnings",
    money(week?.earnings),
    "",
    week ? `${plural(week.entries, "entry", "entries")}, ${plural(week.completes, "complete", "completes")}` : "",
  );

  renderTopSurveys(surveys);
}

/** @param {SurveyWindows[]} surveys */
function renderTopSurveys(surveys) {
  const select = byId("survey-window", HTMLSelectElement);
  const window = /** @type {WindowName} */ (WINDOWS.find((name) => name === select.value) ?? "last7d");
  const ranked = surveys
    .filter((survey) => survey[window] !== undefined)
    .sort(
      (a, b) =>
        (b[window]?.earnings ?? -1) - (a[window]?.earnings ?? -1) ||
        (b[window]?.entries ?? 0) - (a[window]?.entries ?? 0) ||
        a.surveyId - b.surveyId,
    );
  const shown = ranked.slice(0, 10);
  fillRows(
    "top-surveys",
    shown.map((survey) => {
      const numbers = survey[window] ?? {};
      return [
        { text: `Survey ${survey.surveyId}` },
        { text: count(numbers.entries), className: "number" },
        { text: count(numbers.completes), className: "number" },
        { text: percent(numbers.conversion), className: "number" },
        { text: money(numbers.earnings), className: "number" },
        { text: money(numbers.earningsPerEntry), className: "number" },
        { text: count(numbers.reversals), className: "number" },
      ];
    }),
  );
  const label = select.selectedOptions[0]?.textContent ?? "";
  html("top-surveys-note").textContent =
    ranked.length === 0
      ? `No entries reported for this window (${label.toLowerCase()}).`
      : `${count(ranked.length)} survey${ranked.length === 1 ? "" : "s"} with entries${ranked.length > shown.length ? `; the ${shown.length} that earned most are shown` : ""}.`;
}

// ---------------------------------------------------------------------------------------------
// Inventory, cycles, the feed

/** @param {SyncStatus} status */
function renderInventory(status) {
  const { store, loop } = status;
  const matcher = loop?.matcher?.surveys;
  html("inventory-summary").textContent =
    `${count(store.live)} live and ${count(store.closed)} closed surveys on ${store.kind}; feed at sequence ${count(store.latestSequence)}` +
    `${isNumber(matcher) ? `; the matcher holds ${count(matcher)} surveys` : ""}.`;
  const routing = loop?.inventoryData;
  html("routing-data").textContent = routing
    ? `Respondent-aware routing data: survey groups for ${count(routing.groups?.surveys)} surveys (${count(routing.groups?.unavailable)} unavailable), ` +
      `recontact lists for ${count(routing.recontact?.studies)} studies (${count(routing.recontact?.unavailable)} unavailable).` +
      (routing.groups?.pending
        ? ` ${count(routing.groups.pending)} grouped surveys wait for their groups, out of routing.`
        : "") +
      (routing.studyTypesPending
        ? ` ${count(routing.studyTypesPending)} surveys wait for the StudyTypes collection, out of routing.`
        : "")
    : "";
  fillRows(
    "languages",
    (status.languages ?? []).map((entry) => {
      const name = languageNames.get(String(entry.languageId));
      return [
        { text: name ? `${name} (${entry.languageId})` : `Language ${entry.languageId}` },
        { text: count(entry.live), className: "number" },
        { text: count(entry.closed), className: "number" },
      ];
    }),
  );
  const closures = status.closures;
  const closuresText = html("closures");
  closuresText.className = closures?.count ? "warning" : "";
  closuresText.textContent = closures?.count
    ? `${count(closures.count)} closures held by the mass-closure guard (absent for ${count(closures.absentCycles)} of ${count(closures.confirmCycles)} cycles` +
      `${closures.confirmed ? `, ${count(closures.confirmed)} confirmed` : ""}). Surveys: ${closures.sample.join(", ")}${closures.count > closures.sample.length ? ", …" : ""}`
    : "None held.";
  const quarantine = status.quarantine ?? [];
  html("quarantine-summary").textContent = store.quarantined
    ? `${count(store.quarantined)} items in quarantine.`
    : "Nothing in quarantine.";
  byId("quarantine", HTMLTableElement).hidden = quarantine.length === 0;
  fillRows(
    "quarantine",
    quarantine.map((item) => [
      { text: item.surveyId === null ? item.key : `survey ${item.surveyId}` },
      { text: item.source },
      { text: count(item.timesSeen), className: "number" },
      { text: dateTime(item.lastSeenAt) },
    ]),
  );
  fillRows(
    "collections",
    (status.collections ?? []).map((collection) => [
      { text: collection.name },
      { text: `${dateTime(collection.fetchedAt)} (${sinceNow(collection.fetchedAt)})` },
    ]),
  );
}

/**
 * The scale of a chart: the largest ordinary value. A value far above the typical one (the first
 * sync's thousands of changes against a handful per later cycle) would flatten every other bar,
 * so it is drawn to the top, cut, and labelled with its value instead.
 * @param {number[]} values
 */
function chartScale(values) {
  const sorted = values.filter((value) => value > 0).sort((a, b) => a - b);
  const typical = sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
  const ceiling = Math.max(typical * 8, 10);
  const ordinary = sorted.filter((value) => value <= ceiling);
  return { max: Math.max(ordinary.at(-1) ?? 1, 1), outliers: sorted.length - ordinary.length };
}

/**
 * @param {string} title
 * @param {Run[]} runs oldest first
 * @param {(run: Run) => number} value
 * @param {string} unit
 * @param {number} width
 */
function barChart(title, runs, value, unit, width) {
  const height = 130;
  const top = 34;
  const bottom = 20;
  const left = 4;
  const values = runs.map(value);
  const { max, outliers } = chartScale(values);
  const chart = svg("svg", { class: "chart", width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
  const label = svg("title");
  const highest = Math.max(0, ...values);
  label.textContent = `${title}, last ${runs.length} cycles, oldest first; highest ${count(highest)}${unit}`;
  const heading = svg("text", { x: 0, y: 12 });
  heading.textContent =
    highest === 0
      ? `${title}: none in the last ${count(runs.length)} cycle${runs.length === 1 ? "" : "s"}`
      : `${title} (axis to ${count(max)}${unit}${outliers > 0 ? `; ${outliers} above, cut and labelled` : ""})`;
  chart.append(
    label,
    heading,
    svg("line", { x1: left, y1: height - bottom, x2: width, y2: height - bottom, stroke: "#595959" }),
  );
  const slot = (width - left) / Math.max(runs.length, 20);
  const plot = height - top - bottom;
  runs.forEach((run, index) => {
    const amount = values[index] ?? 0;
    const cut = amount > max;
    const barHeight = Math.max((plot * Math.min(amount, max)) / max, 1);
    const x = left + index * slot + 1;
    const bar = svg("rect", {
      x,
      y: height - bottom - barHeight,
      width: Math.max(slot - 2, 1),
      height: barHeight,
      fill: run.status === "failed" ? "#a40000" : "#0b5cad",
    });
    const tip = svg("title");
    tip.textContent = `${dateTime(run.startedAt)}: ${count(amount)}${unit}${run.status === "failed" ? " (failed)" : ""}`;
    bar.append(tip);
    chart.append(bar);
    if (cut) {
      chart.append(svg("rect", { x: x - 1, y: top + plot * 0.25, width: slot, height: 4, fill: "#ffffff" }));
      const mark = svg("text", {
        x: Math.min(Math.max(x + slot / 2, 24), width - 24),
        y: top - 4,
        "text-anchor": "middle",
        class: "outlier",
      });
      mark.textContent = count(amount);
      chart.append(mark);
    }
  });
  const first = runs[0];
  const last = runs.at(-1);
  if (first && last) {
    // Two full dates need about 320 px; a phone gets them without the year and seconds.
    const stamp = width > 420 ? dateTime : shortDateTime;
    const from = svg("text", { x: left, y: height - 5 });
    from.textContent = stamp(first.startedAt);
    chart.append(from);
    if (runs.length > 1) {
      const to = svg("text", { x: width, y: height - 5, "text-anchor": "end" });
      to.textContent = stamp(last.startedAt);
      chart.append(to);
    }
  }
  return chart;
}

/** @param {Run[]} runs newest first */
function renderCycles(runs) {
  const oldestFirst = [...runs].reverse();
  const container = html("cycles-charts");
  const width = Math.max(260, Math.floor(container.clientWidth || 640));
  if (runs.length === 0) {
    container.replaceChildren(
      element(
        "p",
        "No cycle recorded yet: once one has run, charts here show each cycle's duration, upstream requests and changes (the last 20 cycles, oldest first).",
        "note",
      ),
    );
    fillRows("cycles", []);
    return;
  }
  container.replaceChildren(
    barChart("Duration", oldestFirst, (run) => run.durationMs ?? 0, " ms", width),
    barChart("Upstream requests", oldestFirst, (run) => run.counts?.["upstreamRequests"] ?? 0, "", width),
    barChart("Changes", oldestFirst, (run) => run.counts?.["changes"] ?? 0, "", width),
  );
  fillRows(
    "cycles",
    runs.slice(0, 10).map((run) => [
      { text: dateTime(run.startedAt) },
      {
        text: run.status + (run.error ? `: ${run.error}` : ""),
        className: run.status === "failed" ? "failed" : "succeeded",
      },
      { text: count(run.durationMs), className: "number" },
      { text: count(run.counts?.["upstreamRequests"]), className: "number" },
      { text: count(run.counts?.["changes"]), className: "number" },
    ]),
  );
}

/** @param {string} state */
function renderFeed(state) {
  html("feed").replaceChildren(
    ...feedItems.map((change) => {
      const item = element("li", `${change.type} survey ${change.surveyId} at ${dateTime(change.occurredAt)}`);
      item.setAttribute("value", String(change.sequence));
      return item;
    }),
  );
  html("feed-state").textContent = state;
}

async function followFeed() {
  feedRunning = true;
  while (!waitingForToken && feedAfter !== null) {
    try {
      const reply = await api(`/v1/changes?limit=100&wait=25&after=${feedAfter}`);
      if (reply.status === 410) {
        feedAfter = lastStatus?.store.latestSequence ?? 0;
        renderFeed("Fell behind the feed's retention; following from now.");
        continue;
      }
      const body = /** @type {{ changes: Change[], next: number }} */ (reply.body);
      feedItems = [...body.changes].reverse().concat(feedItems).slice(0, 50);
      feedAfter = body.next;
      renderFeed(`Following the feed: at sequence ${count(feedAfter)}, checked ${dateTime(new Date().toISOString())}.`);
    } catch (error) {
      if (tokenFailure(error)) break;
      renderFeed(`The feed could not be read (${error instanceof Error ? error.message : String(error)}); retrying.`);
      await new Promise((resolve) => setTimeout(resolve, REFRESH_MS));
    }
  }
  feedRunning = false;
}

// ---------------------------------------------------------------------------------------------
// The loop of the page

async function readReadiness() {
  try {
    const reply = await api("/readyz", { token: false });
    lastReadiness = { status: reply.status, body: /** @type {Readiness} */ (reply.body) };
  } catch {
    lastReadiness = null;
  }
}

async function readStatus() {
  if (waitingForToken) return;
  try {
    if (languageNames.size === 0) {
      const reply = await api("/v1/collections");
      const body =
        /** @type {{ collections?: { name: string, body?: { Languages?: { Id: number, Name: string }[] } }[] }} */ (
          reply.body
        );
      for (const collection of body.collections ?? []) {
        if (collection.name === "languages")
          for (const language of collection.body?.Languages ?? [])
            languageNames.set(String(language.Id), language.Name);
      }
    }
    const reply = await api("/v1/sync/status");
    lastStatus = /** @type {SyncStatus} */ (reply.body);
    currency = lastStatus.currency ?? "USD";
    statusProblem = "";
    byId("token-form", HTMLFormElement).hidden = true;
    html("status").hidden = false;
    html("forget").hidden = storedToken() === null;
    renderMoney(lastStatus.loop);
    renderGate(lastStatus.loop);
    renderInventory(lastStatus);
    renderCycles(lastStatus.runs ?? []);
    if (feedAfter === null) feedAfter = Math.max(0, lastStatus.store.latestSequence - 20);
    if (!feedRunning) void followFeed();
  } catch (error) {
    if (tokenFailure(error)) return;
    statusProblem = `The status could not be read: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;
async function refresh() {
  clearTimeout(timer);
  await Promise.all([readReadiness(), readStatus()]);
  renderHealth();
  timer = setTimeout(() => void refresh(), REFRESH_MS);
}

byId("token-form", HTMLFormElement).addEventListener("submit", (event) => {
  event.preventDefault();
  const field = byId("token", HTMLInputElement);
  const token = field.value.trim();
  const problem = tokenProblem(token);
  if (problem !== undefined) {
    html("token-error").textContent = problem;
    field.focus();
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  field.value = "";
  html("token-error").textContent = "";
  waitingForToken = false;
  void refresh();
});
html("forget").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  location.reload();
});
byId("survey-window", HTMLSelectElement).addEventListener("change", () => {
  if (lastStatus?.loop) renderTopSurveys(loopSurveys(lastStatus.loop));
});
let resizeQueued = false;
window.addEventListener("resize", () => {
  if (resizeQueued) return;
  resizeQueued = true;
  requestAnimationFrame(() => {
    resizeQueued = false;
    if (lastStatus) renderCycles(lastStatus.runs ?? []);
  });
});

const initial = storedToken();
if (initial !== null && tokenProblem(initial) !== undefined) {
  // A token kept from before this check (or set by hand): say so instead of failing every call.
  sessionStorage.removeItem(TOKEN_KEY);
  askForToken(tokenProblem(initial) ?? "");
}
void refresh();
