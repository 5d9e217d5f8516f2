/**
 * A seeded pseudo-random number generator: the same seed always yields the same sequence, so
 * every factory and every fault drawn by rate is reproducible. Its functions do not use `this`,
 * so they can be passed around on their own.
 */
export interface SeededRandom {
  /** The next number in `[0, 1)`. */
  readonly next: () => number;
  /** An integer in `[min, max]`, both ends included. */
  readonly int: (min: number, max: number) => number;
  /** `true` with probability `probability` (0..1). */
  readonly chance: (probability: number) => boolean;
  /** One element of a non-empty array. @throws RangeError when the array is empty. */
  readonly pick: <T>(items: readonly T[]) => T;
  /** `count` distinct elements of `items`, in random order (all of them when `count` is larger). */
  readonly sample: <T>(items: readonly T[], count: number) => T[];
}

/**
 * mulberry32: a tiny, fast 32-bit generator whose quality is ample for test data. Not for
 * anything that needs to be unpredictable.
 */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Mixes several integers into one 32-bit seed, so that independent streams (one per survey,
 * one for faults) can be derived from a single user seed without overlapping.
 *
 * @example
 * ```ts
 * const random = createSeededRandom(deriveSeed(seed, surveyId));
 * ```
 */
export function deriveSeed(...parts: readonly number[]): number {
  let hash = 0x811c9dc5;
  for (const part of parts) {
    // FNV-1a over the four bytes of each part, then a final avalanche (murmur3 fmix32).
    let value = Math.trunc(part) >>> 0;
    for (let byte = 0; byte < 4; byte++) {
      hash ^= value & 0xff;
      hash = Math.imul(hash, 0x01000193);
      value >>>= 8;
    }
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * Creates a {@link SeededRandom} from an integer seed (mulberry32).
 *
 * @example
 * ```ts
 * const random = createSeededRandom(42);
 * random.int(1, 6); // the same roll every run
 * ```
 */
export function createSeededRandom(seed: number): SeededRandom {
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${String(seed)}`);
  const next = mulberry32(seed);
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (probability) => next() < probability,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError("cannot pick from an empty array");
      return items[Math.floor(next() * items.length)] as T;
    },
    sample: <T>(items: readonly T[], count: number): T[] => {
      const copy = items.slice();
      const size = Math.min(count, copy.length);
      // Partial Fisher-Yates: only the first `size` slots need shuffling.
      for (let index = 0; index < size; index++) {
        const swap = index + Math.floor(next() * (copy.length - index));
        [copy[index], copy[swap]] = [copy[swap] as T, copy[index] as T];
      }
      return copy.slice(0, size);
    },
  };
}
