import { afterEach, describe, expect, it } from "vitest";
import { storeCases } from "./store-cases.ts";
import { startPageService, type PageService } from "./respondent-page-setup.ts";

/*
 * The respondent's page attacked over real HTTP on both stores: the respondent's browser is not
 * trusted like a supplier's server, so what it posts is held to the API's rules. A form that
 * carries text no store keeps (a NUL) or answers a question the session never asked comes back
 * to the question (`?invalid=1`), keeps nothing, and is never taken for an outage (a 503 page).
 */

const { stores, usable } = storeCases("sds_page_attack");
const services: PageService[] = [];
afterEach(async () => {
  for (const service of services.splice(0).reverse()) await service.close();
});

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

function postForm(url: string, fields: [string, string][]): Promise<Response> {
  return fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": CHROME },
    body: new URLSearchParams(fields).toString(),
  });
}

describe.each(stores)("the respondent page under attack ($name)", (store) => {
  it("sends a form with a NUL, or answering a question never asked, back to the question and keeps nothing of it", async (context) => {
    if (!usable(store)) context.skip();
    const service = await startPageService({}, store.database());
    services.push(service);
    const started = await fetch(service.startLink({ uid: "page-hostile", languageId: 3 }), {
      redirect: "manual",
      headers: { "user-agent": CHROME },
    });
    expect(started.status).toBe(303);
    const stepUrl = `${service.base}${started.headers.get("location") ?? ""}`;
    expect(await (await fetch(stepUrl, { headers: { "user-agent": CHROME } })).text()).toContain(
      'name="question" value="43"',
    );
    for (const fields of [
      [
        ["question", "77"],
        ["answer", "a\u0000b"],
      ],
      [
        ["question", "77"],
        ["answer", "1"],
      ],
      [
        ["question", "999999999999"],
        ["answer", "x".repeat(5000)],
      ],
    ] as [string, string][][]) {
      const response = await postForm(`${stepUrl}/answers`, fields);
      expect(response.status, JSON.stringify(fields)).toBe(303);
      expect(response.headers.get("location"), JSON.stringify(fields)).toMatch(/\?invalid=1$/);
    }
    const profile = (await (await service.harness.request("/v1/respondents/page-hostile/profile")).json()) as {
      answers: unknown[];
    };
    expect(profile.answers).toEqual([]);
    // The question asked still takes its answer; a fingerprint no store keeps is left out, not taken for an outage.
    const answered = await postForm(`${stepUrl}/answers`, [
      ["question", "43"],
      ["answer", "2"],
      ["fingerprint", "\u0000".repeat(12)],
    ]);
    expect(answered.status).toBe(303);
    expect(answered.headers.get("location")).not.toMatch(/invalid/);
    const kept = (await (await service.harness.request("/v1/respondents/page-hostile/profile")).json()) as {
      answers: { qualificationId: number }[];
    };
    expect(kept.answers.map((answer) => answer.qualificationId)).toEqual([43]);
  });
});
