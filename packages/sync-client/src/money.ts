/**
 * An amount of money as people read it, with its currency's symbol and rounded to cents
 * (`$1,234.50`, `€0.63`): how sds-sync's earnings (in `SYNC_CURRENCY`, the `currency` of
 * `GET /v1/sync/status`) are shown by the status page and by `sds sync status`. A code `Intl`
 * refuses is written after the figure (`12.00 XYZ`); anything but a finite number is `—`.
 *
 * @example
 * ```ts
 * formatMoney(status.loop.totals.lifetime.earnings, status.currency); // "$30.75"
 * ```
 */
export function formatMoney(value: unknown, currency: string): string {
  if (typeof value !== "number" || !Number.isFinite(value)) return "—";
  try {
    return value.toLocaleString("en", { style: "currency", currency });
  } catch {
    return `${value.toLocaleString("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency}`;
  }
}
