import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonListScanner, JsonScanError, type ScannedPart } from "./json-list-scanner.ts";

const encoder = new TextEncoder();

/** Cuts `bytes` at the given offsets (any order, duplicates allowed). */
function cutAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const cuts = [...new Set(offsets.map((offset) => offset % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    chunks.push(bytes.subarray(from, cut));
    from = cut;
  }
  return chunks;
}

/** Scans `chunks` and rebuilds the object from the parts: what a consumer of the stream ends up with. */
function scan(chunks: readonly Uint8Array[], listKey = "Surveys"): Record<string, unknown> {
  const scanner = new JsonListScanner(listKey);
  const parts: ScannedPart[] = [];
  for (const chunk of chunks) parts.push(...scanner.writeBytes(chunk));
  parts.push(...scanner.end());
  const rebuilt: Record<string, unknown> = {};
  const items: unknown[] = [];
  for (const part of parts) {
    if (part.kind === "item") {
      expect(part.index).toBe(items.length);
      expect(JSON.parse(part.text)).toEqual(part.value);
      items.push(part.value);
    } else {
      // As JSON.parse does: an own property even for "__proto__", the last duplicate winning.
      Object.defineProperty(rebuilt, part.key, {
        value: part.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  if (scanner.listSeen && !Object.hasOwn(rebuilt, listKey)) rebuilt[listKey] = items;
  return rebuilt;
}

function scanText(text: string, listKey?: string): Record<string, unknown> {
  return scan([encoder.encode(text)], listKey);
}

/** Whether JSON.parse accepts the text as an object with at most one "Surveys" field. */
function acceptedByJsonParse(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    (text.match(/"Surveys"\s*:/g) ?? []).length <= 1
  );
}

const fieldName = fc.string({ unit: "grapheme", maxLength: 8 }).filter((key) => key !== "Surveys");
const envelope = fc.record({
  before: fc.dictionary(fieldName, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  items: fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 12 }),
  after: fc.dictionary(fieldName, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  indent: fc.constantFrom(undefined, 0, 1, 2, "\t", "\r\n "),
});
/** A body as the service could send it: fields before and after the list, any spacing. */
const body = envelope.map(({ before, items, after, indent }) => {
  const object: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(before)) object[key] = value;
  object.Surveys = items;
  for (const [key, value] of Object.entries(after)) if (!Object.hasOwn(object, key)) object[key] = value;
  return JSON.stringify(object, null, indent);
});
const cutOffsets = fc.array(fc.nat(), { maxLength: 20 });

describe("JsonListScanner", () => {
  it("yields exactly what JSON.parse gives, for any body cut into chunks at any byte", () => {
    fc.assert(
      fc.property(body, cutOffsets, (text, offsets) => {
        expect(scan(cutAt(encoder.encode(text), offsets))).toEqual(JSON.parse(text));
      }),
      { numRuns: 600 },
    );
  });

  it("yields what JSON.parse gives one byte at a time, through escapes and multi-byte characters", () => {
    const text =
      '{"a":"\\"}\\\\","Surveys":[{"x":"é€𝄞\\u00e9\\n"},"]",[[]],{"}":"{"},-1.5e3,true,null],"z":{"Surveys":[1]}}';
    const bytes = encoder.encode(text);
    const single = Array.from(bytes, (_, index) => bytes.subarray(index, index + 1));
    expect(scan(single)).toEqual(JSON.parse(text));
  });

  it("accepts a body if and only if JSON.parse accepts it as an object, however it was mangled", () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant("insert" as const),
        at: fc.nat(),
        char: fc.constantFrom("{", "}", "[", "]", '"', ",", ":", "\\", " ", "0", "-", "e", "t", "n", "\u00e9", "x"),
      }),
      fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
    );
    fc.assert(
      fc.property(body, mutation, cutOffsets, (text, change, offsets) => {
        const at = change.at % (text.length + 1);
        const mangled =
          change.kind === "delete"
            ? text.slice(0, at) + text.slice(at + 1)
            : change.kind === "insert"
              ? text.slice(0, at) + change.char + text.slice(at)
              : text.slice(0, at);
        const bytes = encoder.encode(mangled);
        // What the bytes say: a deletion can split a surrogate pair, which UTF-8 turns into U+FFFD.
        const received = new TextDecoder().decode(bytes);
        const chunks = cutAt(bytes, offsets);
        if (acceptedByJsonParse(received)) expect(scan(chunks)).toEqual(JSON.parse(received));
        else expect(() => scan(chunks)).toThrow(JsonScanError);
      }),
      { numRuns: 1500 },
    );
  });

  it("hands out each element as soon as it is complete, before the body ends", () => {
    const scanner = new JsonListScanner("Surveys");
    expect(scanner.write('{"SupplierId": 7, "Surveys": [{"SurveyId": 1}, {"Survey')).toEqual([
      { kind: "field", key: "SupplierId", value: 7 },
      { kind: "item", index: 0, value: { SurveyId: 1 }, text: '{"SurveyId": 1}' },
    ]);
    expect(scanner.write('Id": 2}')).toEqual([
      { kind: "item", index: 1, value: { SurveyId: 2 }, text: '{"SurveyId": 2}' },
    ]);
    expect(scanner.write('], "hasError": false}')).toEqual([{ kind: "field", key: "hasError", value: false }]);
    expect(scanner.end()).toEqual([]);
  });

  it("reports truncation, an empty body and trailing text apart", () => {
    const error = (text: string) => {
      try {
        scanText(text);
      } catch (caught) {
        return caught as JsonScanError;
      }
      throw new Error(`accepted ${text}`);
    };
    expect(error('{"Surveys": [{"SurveyId": 1}')).toMatchObject({
      truncated: true,
      message: "the body ended before its JSON was complete",
    });
    expect(error("")).toMatchObject({ truncated: true, message: "the body is empty" });
    expect(error('{"Surveys": []} x')).toMatchObject({
      truncated: false,
      offset: 16,
      message: 'the body is not valid JSON: expected nothing after the end of the JSON at character 16, found "x"',
    });
    expect(error("[1, 2]").message).toContain("expected a JSON object");
    expect(error('{"Surveys": [1,]}').message).toContain("expected a value at character 15");
    expect(error('{"Surveys": [1, {"a": tru}]}').message).toMatch(/^item 1 of "Surveys" is not valid JSON/);
  });

  it("refuses a second list field rather than taking back what it handed out", () => {
    expect(() => scanText('{"Surveys": [1], "Surveys": [2]}')).toThrow('the object has two "Surveys" fields');
    expect(() => scanText('{"Surveys": null, "Surv\\u0065ys": [2]}')).toThrow('the object has two "Surveys" fields');
  });

  it("keeps a list field that is not an array as a field, for the envelope check to report", () => {
    expect(scanText('{"Surveys": {"0": 1}}')).toEqual({ Surveys: { "0": 1 } });
    expect(scanText('{"Surveys": null}')).toEqual({ Surveys: null });
  });

  it("skips a leading byte-order mark and reads invalid UTF-8 as U+FFFD, as Response.text() does", async () => {
    const bytes = Uint8Array.from([
      0xef,
      0xbb,
      0xbf,
      ...encoder.encode('{"Surveys": ["'),
      0xff,
      ...encoder.encode('"]}'),
    ]);
    const expected = JSON.parse(await new Response(bytes).text()) as unknown;
    expect(scan([bytes])).toEqual(expected);
    expect(expected).toEqual({ Surveys: ["\ufffd"] });
  });
});
