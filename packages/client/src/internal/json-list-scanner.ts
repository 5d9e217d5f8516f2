/** What the scanner completed: a top-level field other than the list, or one element of the list. */
export type ScannedPart =
  | { readonly kind: "field"; readonly key: string; readonly value: unknown }
  | {
      readonly kind: "item";
      readonly index: number;
      readonly value: unknown;
      /** The element's JSON text as the body carried it (what `value` was parsed from). */
      readonly text: string;
    };

/** The text is not JSON (or not a JSON object), or it ended before the JSON did. */
export class JsonScanError extends Error {
  override readonly name = "JsonScanError";
  /** Characters of text read before the problem (the whole text's length when it ended too soon). */
  readonly offset: number;
  /** The text ended before the JSON was complete. */
  readonly truncated: boolean;

  constructor(message: string, offset: number, truncated = false) {
    super(message);
    this.offset = offset;
    this.truncated = truncated;
  }
}

// Where the scanner is in the top-level object. Plain numbers: enums are not erasable TypeScript.
const EXPECT_OBJECT = 0; // before the top-level `{`
const FIRST_KEY_OR_END = 1; // after `{`
const KEY = 2; // after a `,` between fields
const COLON = 3; // after a field name
const VALUE = 4; // after a `:`
const AFTER_VALUE = 5; // after a field's value: `,` or `}`
const FIRST_ITEM_OR_END = 6; // after the `[` of the list
const ITEM = 7; // after a `,` between items
const AFTER_ITEM = 8; // after an item: `,` or `]`
const DONE = 9; // after the top-level `}`: whitespace only
const CAPTURING = 10; // inside a field name, a field's value or an item

// What a capture becomes once complete.
const CAPTURE_KEY = 0;
const CAPTURE_FIELD = 1;
const CAPTURE_ITEM = 2;

const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON_CHAR = 0x3a;

/** JSON's four whitespace characters (and no other). */
function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** The characters that end a number, `true`, `false` or `null`. */
function endsScalar(code: number): boolean {
  return code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isWhitespace(code);
}

/** The characters a JSON value can start with. */
function startsValue(code: number): boolean {
  return (
    code === OPEN_BRACE ||
    code === OPEN_BRACKET ||
    code === QUOTE ||
    code === 0x2d ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x74 ||
    code === 0x66 ||
    code === 0x6e
  );
}

function describeChar(code: number): string {
  return code < 0x20
    ? `U+${code.toString(16).padStart(4, "0").toUpperCase()}`
    : JSON.stringify(String.fromCharCode(code));
}

/**
 * An incremental reader of a JSON object with one long array field (`{"Surveys": [...], ...}`):
 * fed the text piece by piece, split anywhere, it hands back each element of the array as soon
 * as it is complete, and every other top-level field, without ever holding the whole text or
 * the whole parsed array.
 *
 * It checks the structure of the top-level object and the array itself; each field value, field
 * name and element is cut out as text (tracking strings, escapes and nesting) and given to
 * `JSON.parse`, which checks it and builds it. So it accepts exactly the objects `JSON.parse`
 * accepts, with one exception: the array's name may appear only once (JSON.parse would keep the
 * last one; a stream cannot take back what it handed out).
 */
export class JsonListScanner {
  readonly #listKey: string;
  readonly #decoder = new TextDecoder("utf-8");
  #state = EXPECT_OBJECT;
  /** Characters consumed by earlier pieces, for error offsets. */
  #consumed = 0;
  #key = "";
  #listSeen = false;
  #items = 0;

  // The capture in progress.
  #target = CAPTURE_KEY;
  /** Whether the captured value is a number or literal (ends at a delimiter) rather than a string or container. */
  #scalar = false;
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** The captured text from earlier pieces. */
  #captured: string[] = [];
  /**
   * Where the next backslash of the current piece is, from the scan position on (-1: none left;
   * -2: not looked for yet): found once per piece and reused by every capture until passed, so a
   * piece without escapes is searched for one only once.
   */
  #backslash = -2;

  /** @param listKey the top-level field whose array is handed out element by element. */
  constructor(listKey: string) {
    this.#listKey = listKey;
  }

  /** Whether the top-level object is complete (only whitespace may follow). */
  get complete(): boolean {
    return this.#state === DONE;
  }

  /** Whether the list field has been seen (its elements are handed out, never as a field). */
  get listSeen(): boolean {
    return this.#listSeen;
  }

  /**
   * Reads the next bytes of UTF-8 (a character split between two chunks is completed by the
   * next; an invalid sequence reads as U+FFFD, as `Response.text()` reads it; a leading BOM is
   * skipped).
   *
   * @throws JsonScanError when the text cannot be JSON.
   */
  writeBytes(chunk: Uint8Array): ScannedPart[] {
    return this.write(this.#decoder.decode(chunk, { stream: true }));
  }

  /**
   * Reads the next piece of text and returns the fields and items it completed, in order.
   *
   * @throws JsonScanError when the text cannot be JSON.
   */
  write(text: string): ScannedPart[] {
    const parts: ScannedPart[] = [];
    const length = text.length;
    this.#backslash = -2;
    let index = 0;
    while (index < length) {
      if (this.#state === CAPTURING) {
        index = this.#continueCapture(text, index, parts);
        continue;
      }
      const code = text.charCodeAt(index);
      if (isWhitespace(code)) {
        index += 1;
        continue;
      }
      switch (this.#state) {
        case EXPECT_OBJECT:
          if (code !== OPEN_BRACE) throw this.#unexpected(code, index, "a JSON object");
          this.#state = FIRST_KEY_OR_END;
          index += 1;
          break;
        case FIRST_KEY_OR_END:
        case KEY:
          if (code === CLOSE_BRACE && this.#state === FIRST_KEY_OR_END) {
            this.#state = DONE;
            index += 1;
          } else if (code === QUOTE) {
            this.#startCapture(CAPTURE_KEY, code);
          } else {
            throw this.#unexpected(code, index, "a field name");
          }
          break;
        case COLON:
          if (code !== COLON_CHAR) throw this.#unexpected(code, index, "':'");
          this.#state = VALUE;
          index += 1;
          break;
        case VALUE:
          if (this.#key === this.#listKey) {
            if (this.#listSeen)
              throw new JsonScanError(`the object has two "${this.#listKey}" fields`, this.#consumed + index);
            this.#listSeen = true;
            if (code === OPEN_BRACKET) {
              this.#state = FIRST_ITEM_OR_END;
              index += 1;
              break;
            }
          }
          if (!startsValue(code)) throw this.#unexpected(code, index, "a value");
          this.#startCapture(CAPTURE_FIELD, code);
          break;
        case AFTER_VALUE:
          if (code === COMMA) this.#state = KEY;
          else if (code === CLOSE_BRACE) this.#state = DONE;
          else throw this.#unexpected(code, index, "',' or '}'");
          index += 1;
          break;
        case FIRST_ITEM_OR_END:
        case ITEM:
          if (code === CLOSE_BRACKET && this.#state === FIRST_ITEM_OR_END) {
            this.#state = AFTER_VALUE;
            index += 1;
            break;
          }
          if (!startsValue(code)) throw this.#unexpected(code, index, "a value");
          this.#startCapture(CAPTURE_ITEM, code);
          break;
        case AFTER_ITEM:
          if (code === COMMA) this.#state = ITEM;
          else if (code === CLOSE_BRACKET) this.#state = AFTER_VALUE;
          else throw this.#unexpected(code, index, "',' or ']'");
          index += 1;
          break;
        default:
          throw this.#unexpected(code, index, "nothing after the end of the JSON");
      }
    }
    this.#consumed += length;
    return parts;
  }

  /**
   * Declares the end of the text: returns what the last bytes completed.
   *
   * @throws JsonScanError when the JSON is not complete.
   */
  end(): ScannedPart[] {
    const rest = this.#decoder.decode();
    const parts = rest === "" ? [] : this.write(rest);
    if (this.#state === DONE) return parts;
    const message =
      this.#state === EXPECT_OBJECT && this.#consumed === 0
        ? "the body is empty"
        : "the body ended before its JSON was complete";
    throw new JsonScanError(message, this.#consumed, true);
  }

  #startCapture(target: number, first: number): void {
    this.#target = target;
    this.#scalar = first !== QUOTE && first !== OPEN_BRACE && first !== OPEN_BRACKET;
    this.#depth = 0;
    this.#inString = false;
    this.#escaped = false;
    this.#captured = [];
    this.#state = CAPTURING;
  }

  /** Scans a capture from `start` on; completes it when its end is in this piece. Returns where scanning stopped. */
  #continueCapture(text: string, start: number, parts: ScannedPart[]): number {
    const length = text.length;
    let index = start;
    if (this.#scalar) {
      while (index < length && !endsScalar(text.charCodeAt(index))) index += 1;
      if (index === length) {
        this.#captured.push(text.slice(start));
        return length;
      }
      this.#complete(text.slice(start, index), start, parts);
      return index;
    }
    let depth = this.#depth;
    let inString = this.#inString;
    let escaped = this.#escaped;
    let backslash = this.#backslash;
    for (; index < length; index += 1) {
      if (inString) {
        // Inside a string only a quote or a backslash matters: jump to the next one natively
        // (most of a survey's text is string content, so this is where the time goes).
        if (escaped) {
          escaped = false;
          continue;
        }
        const quote = text.indexOf('"', index);
        if (backslash !== -1 && backslash < index) backslash = text.indexOf("\\", index);
        if (backslash !== -1 && (quote === -1 || backslash < quote)) {
          // Skip the backslash and the character it escapes, which may be the next piece's first.
          if (backslash + 1 >= length) {
            escaped = true;
            index = length;
            break;
          }
          index = backslash + 1; // the loop's step skips the escaped character
          continue;
        }
        if (quote === -1) {
          index = length;
          break;
        }
        index = quote;
        inString = false;
        if (depth === 0) break;
        continue;
      }
      const code = text.charCodeAt(index);
      if (code === QUOTE) {
        inString = true;
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        depth += 1;
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        depth -= 1;
        if (depth === 0) break;
      }
    }
    this.#backslash = backslash;
    if (index === length) {
      this.#depth = depth;
      this.#inString = inString;
      this.#escaped = escaped;
      this.#captured.push(text.slice(start));
      return length;
    }
    this.#complete(text.slice(start, index + 1), start, parts);
    return index + 1;
  }

  /** Parses a complete capture and moves on. `last` is its part in the current piece, which began at `start`. */
  #complete(last: string, start: number, parts: ScannedPart[]): void {
    const text = this.#captured.length === 0 ? last : this.#captured.join("") + last;
    this.#captured = [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const what =
        this.#target === CAPTURE_ITEM
          ? `item ${this.#items} of "${this.#listKey}"`
          : this.#target === CAPTURE_KEY
            ? "a field name"
            : `the value of "${this.#key}"`;
      throw new JsonScanError(`${what} is not valid JSON (${(error as Error).message})`, this.#consumed + start);
    }
    if (this.#target === CAPTURE_KEY) {
      this.#key = value as string;
      this.#state = COLON;
    } else if (this.#target === CAPTURE_FIELD) {
      parts.push({ kind: "field", key: this.#key, value });
      this.#state = AFTER_VALUE;
    } else {
      parts.push({ kind: "item", index: this.#items, value, text });
      this.#items += 1;
      this.#state = AFTER_ITEM;
    }
  }

  #unexpected(code: number, index: number, expected: string): JsonScanError {
    return new JsonScanError(
      `the body is not valid JSON: expected ${expected} at character ${this.#consumed + index}, found ${describeChar(code)}`,
      this.#consumed + index,
    );
  }
}
