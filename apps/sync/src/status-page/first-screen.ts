import { formatMoney, type Readiness, type SyncStatus } from "@sds/sync-client";

/*
 * The status page's first screen rendered on the server, so the page says something before its
 * script runs (a screenshot, a text browser, a script blocked): the health band from `/readyz`
 * (open data), and, when the API is open anyway (no SYNC_API_TOKEN), the facts and the week's
 * earnings from `/v1/sync/status`. The script then takes over with the same rules
 * (status.js, renderHealth); what it shows is the same once it has read the same answers.
 */

/** What the first screen is rendered from. */
export interface FirstScreen {
  readonly readiness: Readiness;
  /** Only when the API needs no token: the page is served to anyone who can reach it. */
  readonly status?: SyncStatus | undefined;
}

const DASH = "—";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.codePointAt(0) ?? 0};`);

const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const count = (value: unknown) => (isNumber(value) ? value.toLocaleString("en") : DASH);
const plural = (value: unknown, one: string, many: string) => `${count(value)} ${value === 1 ? one : many}`;

function dateTime(iso: unknown): string {
  const date = typeof iso === "string" ? new Date(iso) : undefined;
  if (!date || Number.isNaN(date.getTime())) return DASH;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

function duration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 90) return `${whole} s`;
  if (whole < 90 * 60) return `${Math.round(whole / 60)} min`;
  if (whole < 48 * 3600) return `${Math.floor(whole / 3600)} h ${Math.round((whole % 3600) / 60)} min`;
  return `${Math.round(whole / 86_400)} days`;
}

function sinceNow(iso: unknown, now: Date): string {
  const time = typeof iso === "string" ? new Date(iso).getTime() : Number.NaN;
  if (Number.isNaN(time)) return "";
  const seconds = (now.getTime() - time) / 1000;
  return seconds >= 0 ? `${duration(seconds)} ago` : `in ${duration(-seconds)}`;
}

/** One element of the page: its inner HTML, and its class and `hidden` attribute when given. */
interface ElementFill {
  readonly html: string;
  readonly className?: string;
  readonly hidden?: boolean;
}

/** Fills the element with `id` (a leaf: no element of the same name inside it); throws when the page lacks it. */
function fill(page: string, id: string, { html, className, hidden }: ElementFill): string {
  const pattern = new RegExp(`<([a-z0-9]+) id="${id}"([^>]*)>([\\s\\S]*?)</\\1>`);
  const match = pattern.exec(page);
  if (!match) throw new Error(`the status page has no element #${id} to render into`);
  const [whole, tag = "", attributes = ""] = match;
  let kept = attributes.replace(/ hidden\b/, "");
  if (className !== undefined)
    kept = `${kept.replace(/ class="[^"]*"/, "")}${className === "" ? "" : ` class="${className}"`}`;
  if (hidden === true) kept = `${kept} hidden`;
  if (hidden === undefined && / hidden\b/.test(attributes)) kept = `${kept} hidden`;
  return page.replace(whole, `<${tag} id="${id}"${kept}>${html}</${tag}>`);
}

/** A fact's text and its smaller second line, escaped. */
const factHtml = (text: string, detail = "") =>
  `${escapeHtml(text)}${detail === "" ? "" : `<span class="detail">${escapeHtml(detail)}</span>`}`;

/** The replica's role, and on a follower the replica that leads. */
export function describeRole(replica: SyncStatus["replica"] & { running?: unknown }): {
  text: string;
  detail: string;
} {
  const text = `${replica.leader ? "Leader" : "Follower"}${replica.running ? ", syncing now" : ""}`;
  if (replica.leader) return { text, detail: "" };
  const leader =
    replica.leaderId === undefined
      ? "leader not known"
      : `leader: ${replica.leaderId}${replica.leaderAddress === undefined ? "" : ` at ${replica.leaderAddress}`}`;
  return { text, detail: leader };
}

/** The page's HTML with its first screen filled in from `screen`. */
export function renderFirstScreen(page: string, screen: FirstScreen, now: Date = new Date()): string {
  const { readiness, status } = screen;
  const replica = status?.replica;
  const failures = replica?.["consecutiveFailures"];
  const failingNow = isNumber(failures) && failures > 0;
  const loop = status?.loop as
    | {
        warnings?: unknown;
        account?: { outcomesVerified?: unknown; entryLinksSigned?: unknown };
        totals?: { last7d?: Record<string, unknown> };
      }
    | undefined;
  const warnings = [
    ...new Set([
      ...(readiness.warnings ?? []),
      ...(Array.isArray(loop?.warnings) ? loop.warnings.filter((warning) => typeof warning === "string") : []),
    ]),
  ];
  let state: "ok" | "warn" | "down";
  let headline: string;
  if (!readiness.ready) {
    state = "down";
    headline = `Not ready: ${readiness.reason ?? "no reason given"}`;
  } else {
    state = warnings.length > 0 || failingNow || (readiness.closuresHeld ?? 0) > 0 ? "warn" : "ok";
    headline = failingNow
      ? `Ready, but the last ${count(failures)} cycle${failures === 1 ? "" : "s"} failed`
      : warnings.length > 0
        ? "Ready, with warnings"
        : "Ready";
  }
  const detail: string[] = [];
  if (readiness.lastSuccessAt) {
    const limit = isNumber(readiness.staleAfterSeconds)
      ? `; not ready once older than ${duration(readiness.staleAfterSeconds)}`
      : "";
    detail.push(
      `Last successful sync ${dateTime(readiness.lastSuccessAt)} (${sinceNow(readiness.lastSuccessAt, now)}${limit}).`,
    );
  }
  if (status === undefined) detail.push("Sign in below for the rest (the API token).");

  let html = page.replace(
    "<title>sds-sync status</title>",
    `<title>${state === "down" ? "NOT READY" : state === "warn" ? "Ready, with warnings" : "Ready"} · sds-sync</title>`,
  );
  html = fill(html, "health-headline", { html: escapeHtml(headline) });
  html = fill(html, "health-detail", { html: escapeHtml(detail.join(" ")) });
  html = fill(html, "warnings", {
    html: warnings.map((warning) => `<li>${escapeHtml(warning)}</li>`).join(""),
    hidden: warnings.length === 0,
  });
  html = fill(html, "health", { html: inner(html, "health"), className: `state-${state}` });
  const success = readiness.lastSuccessAt;
  html = fill(html, "fact-last-success", {
    html: factHtml(success ? sinceNow(success, now) : "never", success ? dateTime(success) : ""),
    className: state === "down" ? "bad" : "",
  });
  const held = isNumber((status?.["closures"] as { count?: unknown } | null | undefined)?.count)
    ? (status?.["closures"] as { count: number }).count
    : readiness.closuresHeld;
  html = fill(html, "fact-closures", {
    html: factHtml(count(held)),
    className: isNumber(held) && held > 0 ? "warning" : "",
  });
  if (status === undefined || replica === undefined) return html;

  html = fill(html, "fact-failures", { html: factHtml(count(failures)), className: failingNow ? "bad" : "" });
  const role = describeRole(replica);
  html = fill(html, "fact-role", { html: factHtml(role.text, role.detail) });
  const next = replica["nextRunAt"];
  html = fill(html, "fact-next-run", { html: factHtml(next ? sinceNow(next, now) : DASH, next ? dateTime(next) : "") });
  const quarantined = (status["store"] as { quarantined?: unknown } | undefined)?.quarantined;
  html = fill(html, "fact-quarantine", {
    html: factHtml(count(quarantined)),
    className: isNumber(quarantined) && quarantined > 0 ? "warning" : "",
  });
  const verified = loop?.account?.outcomesVerified;
  const signed = loop?.account?.entryLinksSigned;
  html = fill(html, "fact-signing", {
    html: factHtml(
      verified === true ? "Signature verified" : verified === false ? "Accepted unsigned" : DASH,
      signed === true ? "entry links signed" : signed === false ? "entry links unsigned" : "",
    ),
    className: verified === false ? "warning" : "",
  });
  const week = loop?.totals?.last7d;
  html = fill(html, "fact-earnings", {
    html: factHtml(
      formatMoney(week?.["earnings"], status.currency),
      week
        ? `${plural(week["entries"], "entry", "entries")}, ${plural(week["completes"], "complete", "completes")}`
        : "",
    ),
  });
  return html;
}

/** The inner HTML of the element with `id`. */
function inner(page: string, id: string): string {
  const match = new RegExp(`<([a-z0-9]+) id="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(page);
  if (!match) throw new Error(`the status page has no element #${id} to render into`);
  return match[2] ?? "";
}
