import { describe, expect, it } from "vitest";
import { storedLanguages } from "./stored-languages.ts";

describe("storedLanguages", () => {
  it("takes each language on its own: names, upper-case countries, and a malformed entry lost alone", async () => {
    const languages = storedLanguages(() =>
      Promise.resolve({
        Languages: [
          { Id: 3, Name: "English", CountryCode: "us" },
          { Id: "9", Name: "German (Germany)", CountryCode: "DE" },
          { Id: "x", Name: "Nowhere" },
          null,
          { Id: 12, Name: 7, CountryCode: "Germany" },
        ],
      }),
    );
    expect(await languages()).toEqual(
      new Map<number, unknown>([
        [3, { name: "English", countryCode: "US" }],
        [9, { name: "German (Germany)", countryCode: "DE" }],
        [12, {}],
      ]),
    );
  });

  it("reads the store once a minute, and again at once after a failed read", async () => {
    let now = 0;
    let reads = 0;
    let fail = true;
    const languages = storedLanguages(
      () => {
        reads += 1;
        return fail
          ? Promise.reject(new Error("store down"))
          : Promise.resolve({ Languages: [{ Id: 3, Name: "English" }] });
      },
      () => now,
    );
    expect((await languages()).size).toBe(0);
    fail = false;
    expect((await languages()).get(3)).toEqual({ name: "English" });
    now = 59_999;
    await languages();
    expect(reads).toBe(2);
    now = 60_000;
    await languages();
    expect(reads).toBe(3);
  });
});
