import type { Registry } from "prom-client";
import type { StoredLanguages } from "../inventory-store/stored-languages.ts";
import { geoLite2Countries } from "./country-lookup.ts";
import type { GateConfig } from "./gate-settings.ts";
import { languageCountries } from "./language-countries.ts";
import { QualityGate } from "./quality-gate.ts";

/** The quality gate of one replica, from its settings (gate-settings.ts's defaults applied here). */
export function createQualityGate(options: {
  readonly config: GateConfig;
  readonly registry: Registry;
  /** The stored Languages collection (the geo rule's countries). */
  readonly languages: StoredLanguages;
}): QualityGate {
  const { config } = options;
  return new QualityGate({
    rules: {
      bots: config.gateBots ?? true,
      maxStartsPerIpPerHour: config.maxStartsPerIpPerHour,
      maxStartsPerUidPerDay: config.maxStartsPerUidPerDay,
      concurrent: config.gateConcurrent ?? true,
      deviceWindowDays: config.deviceWindowDays ?? 30,
      geo: config.gateGeo ?? false,
      respondentMaxRisk: config.respondentMaxRisk,
    },
    countries: geoLite2Countries(),
    languageCountry: languageCountries({ configured: config.languageCountries, languages: options.languages }),
    registry: options.registry,
  });
}
