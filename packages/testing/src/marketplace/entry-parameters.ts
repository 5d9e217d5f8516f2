/** The names of the query parameters that carry the token and the uid, read from a `SurveyUrl` template. */
export interface EntryParameterNames {
  readonly token: string | undefined;
  readonly uid: string | undefined;
}

/**
 * Finds which query parameters of the template hold the token (`[#vq_tid#]`, or `[%RID%]`, the
 * respondent id most supplier S2S URLs carry and sds-sync fills with the token) and the uid
 * (`[#vq_tuid#]`), any case.
 */
export function entryParameterNames(surveyUrl: string): EntryParameterNames {
  const query = surveyUrl.slice(surveyUrl.indexOf("?") + 1);
  let token: string | undefined;
  let uid: string | undefined;
  for (const pair of query.split("&")) {
    const [name = "", value = ""] = pair.split("=", 2);
    if (/^\[#\s*vq_tid\s*#\]/i.test(value)) token = name;
    else if (/^\[%\s*rid\s*%\]/i.test(value)) token ??= name;
    else if (/^\[#\s*vq_tuid\s*#\]/i.test(value)) uid = name;
  }
  return { token, uid };
}

/** The decoded value of the first query parameter `name` of a raw URL. */
export function rawQueryValue(url: string, name: string): string | undefined {
  const query = url.includes("?") ? (url.slice(url.indexOf("?") + 1).split("#", 1)[0] ?? "") : "";
  for (const pair of query.split("&")) {
    const equals = pair.indexOf("=");
    if ((equals < 0 ? pair : pair.slice(0, equals)) !== name) continue;
    try {
      return decodeURIComponent(equals < 0 ? "" : pair.slice(equals + 1));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The scheme and host of a URL template, read without parsing (placeholders may follow). */
export function templateOrigin(url: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url)?.[0] ?? "";
}
