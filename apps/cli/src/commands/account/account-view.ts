import type { SupplierAccount, UrlSettings } from "@sds/schemas";
import type { Styles } from "../../framework/styles.ts";
import type { TableRenderer } from "../../framework/table.ts";

type EncryptionSettings = SupplierAccount["IncomingEncryption"];

/** The account as a terminal shows it: identity, both encryption settings, both URL sets. */
export function renderAccount(account: SupplierAccount, styles: Styles, { renderKeyValues }: TableRenderer): string {
  const yesNo = (value: boolean) => (value ? styles.green("yes") : styles.yellow("no"));
  const section = (title: string) => `\n${styles.bold(title)}\n`;
  const encryption = (settings: EncryptionSettings) =>
    renderKeyValues(
      [
        ["Enabled", yesNo(settings.Enabled)],
        ["Algorithm", settings.Algorithm],
        ["QueryParameter", settings.QueryParameter ?? styles.dim("(unset)")],
        ["EncryptionKey", settings.EncryptionKey ?? styles.dim("(unset)")],
      ],
      styles,
      "  ",
    );
  return [
    renderKeyValues(
      [
        ["Id", account.Id],
        ["Name", account.Name],
        ["Active", yesNo(account.Active)],
      ],
      styles,
    ),
    section("Incoming encryption"),
    encryption(account.IncomingEncryption),
    section("Outgoing encryption"),
    encryption(account.OutgoingEncryption),
    section("Redirect URLs"),
    renderUrlSettings(account.RedirectUrls, styles, { renderKeyValues }),
    section("S2S URLs"),
    renderUrlSettings(account.S2SUrls, styles, { renderKeyValues }),
  ].join("");
}

/** A set of redirect or S2S URLs as aligned lines. */
export function renderUrlSettings(
  settings: UrlSettings,
  styles: Styles,
  { renderKeyValues }: Pick<TableRenderer, "renderKeyValues">,
): string {
  return renderKeyValues(
    [
      ["Enabled", settings.Enabled ? styles.green("yes") : styles.yellow("no")],
      ["CompleteUrl", settings.CompleteUrl],
      ["TerminateUrl", settings.TerminateUrl],
      ["OverQuotaUrl", settings.OverQuotaUrl],
      ["SecurityTerminateUrl", settings.SecurityTerminateUrl],
    ],
    styles,
    "  ",
  );
}
