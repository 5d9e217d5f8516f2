import type { BitsetPool } from "../internal/bitset.ts";
import { sampleBeta } from "../yield/beta-sampling.ts";
import {
  conversionPosterior,
  conversionPrior,
  DEFAULT_PRIOR_STRENGTH,
  posteriorMean,
} from "../yield/conversion-estimate.ts";
import { heldOutUntil, resolveYieldCutoff, type YieldCutoff } from "../yield/yield-cutoff.ts";
import { checkYieldEvidence, type YieldEvidence } from "../yield/yield-evidence.ts";
import type { ExclusionReason, YieldExplanation } from "./match-types.ts";
import { SlotMarks } from "./slot-marks.ts";
import { TopSlots } from "./top-slots.ts";

/** How the matcher ranks under order `"yield"`. */
export interface YieldOptions {
  /** How many entries the prior weighs as (`alpha0 + beta0`). @default 10 */
  readonly priorStrength?: number;
  /**
   * `true`: Thompson sampling, each survey scored `Cpi ×` a conversion drawn from its posterior,
   * so surveys with little evidence get tried. `false`: `Cpi ×` the posterior mean.
   * @default true
   */
  readonly explore?: boolean;
  /** The uniform source of the draws, `[0, 1)`; a seeded one ({@link createSeededRandom}) makes runs reproducible. @default Math.random */
  readonly random?: () => number;
  /** The cut-off of surveys that do not convert. @default 20 entries, 6 hours */
  readonly cutoff?: YieldCutoff;
}

/**
 * The matcher's yield side: per slot `Cpi` and `Ir`, the evidence per survey id, the cool-down
 * ends of surveys held out, and the ranking itself. Ranking visits the candidates in descending
 * `Cpi` and stops once `Cpi` falls below the worst kept score: a conversion is at most 1, so no
 * later survey can score higher, and only the few surveys that could make the results are
 * sampled (exact: the results are what sampling every candidate would give, draw for draw, for
 * the surveys visited).
 */
export class YieldRanker {
  readonly #strength: number;
  readonly #explore: boolean;
  readonly #random: () => number;
  readonly #cooldownMs: number;
  readonly #evidence = new Map<number, YieldEvidence>();
  readonly #heldUntil: SlotMarks<number>;
  #cpi: Float64Array;
  #ir: Float64Array;
  #slotCount = 0;
  /** Slots by `Cpi` descending, then survey id ascending; rebuilt when a `Cpi` changes. */
  #order: Int32Array | undefined;
  /** Scratch, allocated by the first yield match: scores and draws of the latest match, and which slots it drew. */
  #scores: Float64Array | undefined;
  #draws: Float64Array | undefined;
  #drawn: Uint32Array | undefined;
  #stamp = 0;
  #lastRequest: object | undefined;

  constructor(pool: BitsetPool, options: YieldOptions = {}) {
    this.#strength = options.priorStrength ?? DEFAULT_PRIOR_STRENGTH;
    conversionPrior({ ir: 50 }, this.#strength); // checks the strength now rather than at the first match
    this.#explore = options.explore ?? true;
    this.#random = options.random ?? Math.random;
    this.#cooldownMs = resolveYieldCutoff(options.cutoff).cooldownMs;
    this.#heldUntil = new SlotMarks(pool);
    this.#cpi = new Float64Array(pool.wordCount * 32);
    this.#ir = new Float64Array(pool.wordCount * 32);
  }

  grow(slots: number): void {
    for (const name of ["cpi", "ir"] as const) {
      const grown = new Float64Array(slots);
      grown.set(name === "cpi" ? this.#cpi : this.#ir);
      if (name === "cpi") this.#cpi = grown;
      else this.#ir = grown;
    }
    this.#scores = undefined;
    this.#draws = undefined;
    this.#drawn = undefined;
  }

  /** A survey took (`fresh`) or kept a slot, with this `Cpi` and `Ir`. */
  place(slot: number, surveyId: number, cpi: number, ir: number, fresh: boolean): void {
    // Ties in Cpi are visited by survey id, so a slot that changes hands re-sorts too.
    if (fresh || this.#cpi[slot] !== cpi) this.#order = undefined;
    this.#slotCount = Math.max(this.#slotCount, slot + 1);
    this.#cpi[slot] = cpi;
    this.#ir[slot] = ir;
    this.#heldUntil.attach(surveyId, slot);
    if (this.#drawn !== undefined) this.#drawn[slot] = 0;
  }

  /** A survey left its slot. */
  release(slot: number): void {
    this.#heldUntil.detach(slot);
    // A freed slot stays in the order: it is never a candidate, and its next survey re-sorts.
    if (this.#drawn !== undefined) this.#drawn[slot] = 0;
  }

  setEvidence(surveyId: number, evidence: YieldEvidence | undefined, slot: number | undefined): void {
    if (evidence === undefined) this.#evidence.delete(surveyId);
    else {
      checkYieldEvidence(surveyId, evidence);
      this.#evidence.set(surveyId, evidence);
    }
    this.#heldUntil.set(surveyId, heldOutUntil(evidence, { cooldownMs: this.#cooldownMs }), slot);
  }

  /** Words of the slots that may be held out (test a candidate's bit before calling {@link isHeldOut}). */
  get mayBeHeldOut(): Uint32Array {
    return this.#heldUntil.bits.words;
  }

  isHeldOut(surveyId: number, now: number): boolean {
    const until = this.#heldUntil.get(surveyId);
    return until !== undefined && now < until;
  }

  /** The best `limit` of the candidate slots (every one eligible), best first. */
  rank(
    candidates: Uint32Array,
    limit: number,
    surveyIds: Float64Array,
    request: object,
    explore: boolean = this.#explore,
  ): number[] {
    const order = this.#sortedOrder(surveyIds);
    const scores = (this.#scores ??= new Float64Array(this.#cpi.length));
    const draws = (this.#draws ??= new Float64Array(this.#cpi.length));
    const drawn = (this.#drawn ??= new Uint32Array(this.#cpi.length));
    this.#stamp = (this.#stamp % 0xffff_fffe) + 1;
    this.#lastRequest = request;
    const cpis = this.#cpi;
    const top = new TopSlots(limit, scores, surveyIds);
    for (const slot of order) {
      if (((candidates[slot >>> 5] ?? 0) & (1 << (slot & 31))) === 0) continue;
      const cpi = cpis[slot] ?? 0;
      // A conversion is in [0, 1]: a survey scores at most max(Cpi, 0), and every later one no more.
      if (Math.max(cpi, 0) < top.threshold()) break;
      const posterior = this.#posterior(slot, surveyIds[slot] ?? 0);
      let conversion: number;
      if (explore) {
        conversion = sampleBeta(posterior.alpha, posterior.beta, this.#random);
        draws[slot] = conversion;
        drawn[slot] = this.#stamp;
      } else conversion = posteriorMean(posterior);
      scores[slot] = cpi * conversion;
      top.offer(slot);
    }
    return top.sorted();
  }

  /** What `explain` says under yield: the estimate, and the cut-off when it holds the survey out. */
  explain(
    slot: number,
    surveyId: number,
    request: object,
    now: number,
    explore: boolean = this.#explore,
  ): { readonly yield: YieldExplanation; readonly cutoff: ExclusionReason | undefined } {
    const evidence = this.#evidence.get(surveyId);
    const prior = conversionPrior(
      { ir: this.#ir[slot] ?? 0, marketplaceConversion: evidence?.marketplaceConversion },
      this.#strength,
    );
    const estimate = posteriorMean(conversionPosterior(prior, evidence));
    const cpi = this.#cpi[slot] ?? 0;
    const drawnHere = explore && request === this.#lastRequest && this.#drawn?.[slot] === this.#stamp;
    const draw = drawnHere ? this.#draws?.[slot] : undefined;
    const score = explore ? (draw === undefined ? undefined : cpi * draw) : cpi * estimate;
    const explanation: YieldExplanation = {
      estimate,
      prior: { mean: prior.mean, strength: prior.strength, source: prior.source },
      evidence: { decided: evidence?.decided ?? 0, completes: evidence?.completes ?? 0 },
      ...(draw === undefined ? {} : { draw }),
      ...(score === undefined ? {} : { score }),
    };
    const until = this.#heldUntil.get(surveyId);
    const cutoff: ExclusionReason | undefined =
      until !== undefined && now < until
        ? {
            kind: "yield-cutoff",
            decided: evidence?.decided ?? 0,
            heldUntil: until,
            message: `no complete in ${evidence?.decided ?? 0} decided entries: held out of yield ranking until ${new Date(until).toISOString()}`,
          }
        : undefined;
    return { yield: explanation, cutoff };
  }

  #posterior(slot: number, surveyId: number): { alpha: number; beta: number } {
    const evidence = this.#evidence.get(surveyId);
    const prior = conversionPrior(
      { ir: this.#ir[slot] ?? 0, marketplaceConversion: evidence?.marketplaceConversion },
      this.#strength,
    );
    return conversionPosterior(prior, evidence);
  }

  #sortedOrder(surveyIds: Float64Array): Int32Array {
    if (this.#order !== undefined) return this.#order;
    const cpis = this.#cpi;
    const order = Int32Array.from({ length: this.#slotCount }, (_, slot) => slot);
    order.sort(
      (left, right) => (cpis[right] ?? 0) - (cpis[left] ?? 0) || (surveyIds[left] ?? 0) - (surveyIds[right] ?? 0),
    );
    this.#order = order;
    return order;
  }
}
