/**
 * Columns of per-slot values kept in typed arrays instead of one string object per value, for
 * the survey index (see `SurveyStates`). Each column stores a value compactly only when it reads
 * back exactly as given, and keeps any other value as its text: what `get` returns is always
 * the very string `set` was given.
 */

/** Kind byte of a slot: how its value is held. */
const ABSENT = 0;
const TEXT = 1;
const PACKED = 2;

/** Room for `slots` in a typed array that grows by doubling. */
function grown<T extends Uint8Array | Float64Array>(array: T, slots: number, make: (length: number) => T): T {
  if (slots <= array.length) return array;
  let length = Math.max(1024, array.length);
  while (length < slots) length *= 2;
  const next = make(length);
  next.set(array);
  return next;
}

/** SHA-1 digest length: `rawHash` and `recordHash` are base64 SHA-1 digests (see `survey-record.ts`). */
const DIGEST_BYTES = 20;

/** Base64 digests as their 20 raw bytes (20 bytes instead of a 28-character string and its pointer). */
export class DigestColumn {
  #bytes = Buffer.alloc(0);
  #kinds = new Uint8Array(0);
  readonly #texts = new Map<number, string>();

  set(slot: number, value: string): void {
    this.#grow(slot + 1);
    const offset = slot * DIGEST_BYTES;
    this.#bytes.fill(0, offset, offset + DIGEST_BYTES);
    const written = value.length === 28 ? this.#bytes.write(value, offset, DIGEST_BYTES, "base64") : 0;
    if (written === DIGEST_BYTES && this.#bytes.toString("base64", offset, offset + DIGEST_BYTES) === value) {
      this.#kinds[slot] = PACKED;
      this.#texts.delete(slot);
    } else {
      this.#kinds[slot] = TEXT;
      this.#texts.set(slot, value);
    }
  }

  /** Whether `value` is what `set` was given for `slot` (without building a state around it). */
  equals(slot: number, value: string): boolean {
    if (this.#kinds[slot] === PACKED) {
      const offset = slot * DIGEST_BYTES;
      return value.length === 28 && this.#bytes.toString("base64", offset, offset + DIGEST_BYTES) === value;
    }
    return this.#texts.get(slot) === value;
  }

  get(slot: number): string {
    if (this.#kinds[slot] === PACKED) {
      const offset = slot * DIGEST_BYTES;
      return this.#bytes.toString("base64", offset, offset + DIGEST_BYTES);
    }
    const text = this.#texts.get(slot);
    if (text === undefined) throw new RangeError(`no digest in slot ${String(slot)}`);
    return text;
  }

  #grow(slots: number): void {
    this.#kinds = grown(this.#kinds, slots, (length) => new Uint8Array(length));
    if (this.#bytes.length < this.#kinds.length * DIGEST_BYTES) {
      const next = Buffer.alloc(this.#kinds.length * DIGEST_BYTES);
      this.#bytes.copy(next);
      this.#bytes = next;
    }
  }
}

/** Shapes of a UTC date-time that read back from epoch milliseconds (any other shape is kept as text). */
const SHAPES = [
  { fraction: true, zone: true },
  { fraction: false, zone: true },
  { fraction: true, zone: false },
  { fraction: false, zone: false },
] as const;
type Shape = (typeof SHAPES)[number];

function formatted(ms: number, shape: Shape): string {
  const full = new Date(ms).toISOString();
  const text = shape.fraction ? full : `${full.slice(0, 19)}Z`;
  return shape.zone ? text : text.slice(0, -1);
}

/** Nullable ISO 8601 date-times as epoch milliseconds and a shape byte (9 bytes instead of a string and its pointer). */
export class TimestampColumn {
  #millis = new Float64Array(0);
  #kinds = new Uint8Array(0);
  readonly #texts = new Map<number, string>();

  set(slot: number, value: string | null): void {
    this.#millis = grown(this.#millis, slot + 1, (length) => new Float64Array(length));
    this.#kinds = grown(this.#kinds, slot + 1, (length) => new Uint8Array(length));
    this.#texts.delete(slot);
    if (value === null) {
      this.#kinds[slot] = ABSENT;
      return;
    }
    // Parsed as UTC whether or not it says so: without a zone, Date.parse would read local time.
    const ms = Date.parse(value.endsWith("Z") ? value : `${value}Z`);
    const shape = Number.isFinite(ms) ? SHAPES.findIndex((candidate) => formatted(ms, candidate) === value) : -1;
    if (shape >= 0) {
      this.#millis[slot] = ms;
      this.#kinds[slot] = PACKED + shape;
    } else {
      this.#kinds[slot] = TEXT;
      this.#texts.set(slot, value);
    }
  }

  get(slot: number): string | null {
    const kind = this.#kinds[slot] ?? ABSENT;
    if (kind === ABSENT) return null;
    if (kind === TEXT) return this.#texts.get(slot) ?? null;
    const shape = SHAPES[kind - PACKED];
    if (shape === undefined) throw new RangeError(`unknown timestamp shape ${String(kind)}`);
    return formatted(this.#millis[slot] ?? 0, shape);
  }
}
