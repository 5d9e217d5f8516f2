import type { SupplierAccount, UrlSettings, UrlSettingsBody } from "@sds/schemas";
import { createSeededRandom, deriveSeed, type SeededRandom } from "../random.ts";
import type { SeedOptions } from "./types.ts";

/** Options of {@link buildSupplierAccount}. */
export interface SupplierAccountOptions extends SeedOptions {
  /** The supplier id; the account's `Id` is its decimal string. @default 1001 */
  readonly supplierId?: number;
  /** Fields to use instead of generated ones (`Id` follows `supplierId`). */
  readonly overrides?: Partial<
    Pick<SupplierAccount, "Name" | "Active" | "IncomingEncryption" | "OutgoingEncryption" | "RedirectUrls" | "S2SUrls">
  >;
}

const namePrefixes = [
  "Blue",
  "North",
  "Bright",
  "Civic",
  "Open",
  "True",
  "Prime",
  "Summit",
  "Harbor",
  "Meridian",
] as const;
const nameSuffixes = ["Panel", "Insights", "Voices", "Research", "Opinions", "Rewards", "Community"] as const;
const hosts = ["panel.example.com", "rewards.example.net", "surveys.example.org", "community.example.com"] as const;
const algorithms = ["SHA256", "SHA1", "MD5"] as const;

function hex(random: SeededRandom, length: number): string {
  let out = "";
  while (out.length < length) out += random.int(0, 0xffff).toString(16).padStart(4, "0");
  return out.slice(0, length);
}

/**
 * Builds redirect or S2S URL settings: a valid update body whose four URLs share a host and
 * carry the `[%RID%]` placeholder.
 *
 * @example
 * ```ts
 * const body = buildUrlSettings({ Enabled: false }, { seed: 3 });
 * ```
 */
export function buildUrlSettings(
  overrides: Partial<UrlSettings> = {},
  options: SeedOptions & { readonly kind?: "redirect" | "s2s" } = {},
): UrlSettingsBody {
  const random = createSeededRandom(deriveSeed(options.seed ?? 1, options.kind === "s2s" ? 2 : 1, 7));
  const base =
    options.kind === "s2s" ? `https://api.${random.pick(hosts)}/s2s` : `https://${random.pick(hosts)}/return`;
  return {
    Enabled: true,
    CompleteUrl: `${base}/complete?rid=[%RID%]`,
    TerminateUrl: `${base}/terminate?rid=[%RID%]`,
    OverQuotaUrl: `${base}/overquota?rid=[%RID%]`,
    SecurityTerminateUrl: `${base}/security?rid=[%RID%]`,
    ...overrides,
  };
}

/**
 * Builds a supplier account as Get Supplier Details returns it: incoming encryption enabled with
 * a secret key, outgoing encryption unset (`null`s), redirect and S2S URLs set.
 *
 * @example
 * ```ts
 * const account = buildSupplierAccount({ supplierId: 1001, seed: 5 });
 * account.Id; // "1001"
 * ```
 */
export function buildSupplierAccount(options: SupplierAccountOptions = {}): SupplierAccount {
  const supplierId = options.supplierId ?? 1001;
  const seed = options.seed ?? 1;
  const random = createSeededRandom(deriveSeed(seed, supplierId, 8));
  const account: SupplierAccount = {
    Id: String(supplierId),
    Name: `${random.pick(namePrefixes)} ${random.pick(nameSuffixes)}`,
    Active: true,
    IncomingEncryption: {
      Enabled: true,
      Algorithm: random.pick(algorithms),
      QueryParameter: "hash",
      EncryptionKey: hex(random, 32),
    },
    OutgoingEncryption: { Enabled: false, Algorithm: "SHA256", QueryParameter: null, EncryptionKey: null },
    RedirectUrls: buildUrlSettings({}, { seed: deriveSeed(seed, supplierId), kind: "redirect" }),
    S2SUrls: buildUrlSettings({}, { seed: deriveSeed(seed, supplierId), kind: "s2s" }),
  };
  return { ...account, ...options.overrides, Id: String(supplierId) };
}
