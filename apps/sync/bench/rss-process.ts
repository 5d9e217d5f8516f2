/**
 * Reports the peak resident set size of a process that only reads the live list: with bare
 * fetch and `JSON.parse` of the whole body (`list`), or through the client's stream, survey by
 * survey, keeping nothing (`stream`). What the list alone costs, beside sds-sync's own figure.
 */
import { createClient } from "@sds/client";
import { DEFAULT_API_KEY } from "@sds/testing";

const [baseUrl = "", mode = "list"] = process.argv.slice(2);
const maxRssMb = () => process.resourceUsage().maxRSS / 1024;

let surveys = 0;
if (mode === "list") {
  const response = await fetch(`${baseUrl}/surveys`, { headers: { "EQ-PARTNER-ACCESS-KEY": DEFAULT_API_KEY } });
  surveys = (JSON.parse(await response.text()) as { Surveys: unknown[] }).Surveys.length;
} else {
  const sds = createClient({ baseUrl, apiKey: DEFAULT_API_KEY, retry: 0 });
  for await (const { survey } of sds.surveys.stream()) if (survey) surveys += 1;
}
process.send?.({ maxRssMb: maxRssMb(), surveys });
process.disconnect();
