/**
 * The candidate closest to `input` by edit distance, if it is close enough to be a likely typo:
 * one edit for short input, two for input of eight characters or more.
 *
 * @example
 * ```ts
 * closestMatch("sruveys", ["surveys", "account"]); // "surveys"
 * ```
 */
export function closestMatch(input: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(2, Math.max(1, Math.floor(input.length / 4)));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** Damerau-Levenshtein distance with adjacent transpositions: `sruveys` is one edit from `surveys`. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  const at = (row: number, column: number) => table[row]?.[column] ?? 0;
  for (let row = 1; row < rows; row++) {
    for (let column = 1; column < columns; column++) {
      const substitution = a[row - 1] === b[column - 1] ? 0 : 1;
      let distance = Math.min(at(row - 1, column) + 1, at(row, column - 1) + 1, at(row - 1, column - 1) + substitution);
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) {
        distance = Math.min(distance, at(row - 2, column - 2) + 1);
      }
      (table[row] as number[])[column] = distance;
    }
  }
  return at(rows - 1, columns - 1);
}
