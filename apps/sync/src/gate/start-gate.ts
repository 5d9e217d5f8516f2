import type { Registry } from "prom-client";
import { geoLite2Countries } from "./country-lookup.ts";
import type { GateConfig } from "./gate-settings.ts";
import { languageCountries } from "./language-countries.ts";
import { QualityGate } from "./quality-gate.ts";

/** The quality gate of one replica, from its settings (gate-settings.ts's defaults applied here). */
export function createQualityGate(options: {
  readonly config: GateConfig;
  readonly registry: Registry;
  /** The stored Languages collection's body (the geo rule's countries), undefined while none was stored. */
  readonly readLanguages: () => Promise<unknown>;
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
    languageCountry: languageCountries({ configured: config.languageCountries, readLanguages: options.readLanguages }),
    registry: options.registry,
  });
}
