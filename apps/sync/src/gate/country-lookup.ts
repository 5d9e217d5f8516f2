import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isIP } from "node:net";
import { Reader, type Response } from "mmdb-lib";

/*
 * The country of an address, from the GeoLite2 country database that
 * `@ip-location-db/geolite2-country-mmdb` ships (MaxMind's GeoLite2, CC BY-SA 4.0 with its EULA,
 * rebuilt by that package; no licence key, nothing downloaded at run time). The file (9 MB) is
 * read the first time the geo rule asks, not at start: a service with SYNC_GATE_GEO off never
 * loads it. An update of the package updates the data.
 */

/** The database file, found beside the package's own files. */
function databasePath(): string {
  return createRequire(import.meta.url).resolve("@ip-location-db/geolite2-country-mmdb/geolite2-country.mmdb");
}

/** Looks up the country of client addresses. */
export interface CountryLookup {
  /** The ISO 3166-1 alpha-2 code of the address's country; undefined for an address the database does not place (private, loopback, unlisted) or that is not an address. */
  country(address: string): string | undefined;
}

/** The lookup over the shipped GeoLite2 database, opened on first use. */
export function geoLite2Countries(): CountryLookup {
  let reader: Reader<Response> | undefined;
  return {
    country(address) {
      // An IPv4 address as IPv6 (a dual-stack socket's ::ffff:a.b.c.d) is looked up as IPv4.
      const plain = address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
      if (isIP(plain) === 0) return undefined;
      reader ??= new Reader<Response>(readFileSync(databasePath()));
      // ip-location-db's records are `{ country_code }`, not MaxMind's own shape: read as unknown.
      const record: unknown = reader.get(plain);
      if (typeof record !== "object" || record === null || !("country_code" in record)) return undefined;
      const code = record.country_code;
      return typeof code === "string" && code.length === 2 ? code.toUpperCase() : undefined;
    },
  };
}
