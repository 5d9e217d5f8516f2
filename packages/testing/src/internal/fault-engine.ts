import type { OperationId } from "@sds/schemas";
import { fakeErrorCodes } from "../fake/constants.ts";
import type { ActiveFault, FaultController, FaultSpec } from "../fake/faults.ts";
import type { SeededRandom } from "../random.ts";
import { ControlError } from "./control-error.ts";
import { FaultSpecSchema } from "./fault-schema.ts";
import { describeIssue } from "./request-body.ts";

/** What the fault engine knows about a request when it decides. */
export interface FaultContext {
  readonly operationId: OperationId | null;
  readonly path: string;
  readonly method: string;
  readonly supplierId: number | null;
}

/** The faults that hit one request: total delay, and at most one fault that shapes the response. */
export interface FaultDecision {
  readonly latencyMs: number;
  readonly outcome: Exclude<FaultSpec, { kind: "latency" }> | undefined;
  /** Kinds that fired, in order, for the request log. */
  readonly fired: readonly string[];
}

interface StoredFault {
  readonly id: string;
  readonly spec: FaultSpec;
  fired: number;
  remaining: number | null;
}

function matches(spec: FaultSpec, context: FaultContext): boolean {
  if (spec.operation !== undefined) {
    if (context.operationId === null) return false;
    const wanted: readonly OperationId[] = typeof spec.operation === "string" ? [spec.operation] : spec.operation;
    if (!wanted.includes(context.operationId)) return false;
  }
  if (spec.path !== undefined && spec.path !== context.path) return false;
  if (spec.method !== undefined && spec.method.toUpperCase() !== context.method) return false;
  if (spec.supplierId !== undefined && spec.supplierId !== context.supplierId) return false;
  return true;
}

function snapshot(fault: StoredFault): ActiveFault {
  return { ...fault.spec, id: fault.id, fired: fault.fired, remaining: fault.remaining };
}

/** The fault list of one fake, and the decision of which faults hit a request. */
export class FaultEngine implements FaultController {
  readonly #random: SeededRandom;
  #faults: StoredFault[] = [];
  #nextId = 1;

  constructor(random: SeededRandom) {
    this.#random = random;
  }

  add(fault: FaultSpec): ActiveFault {
    const result = FaultSpecSchema.safeParse(fault);
    if (!result.success) {
      throw new ControlError(
        400,
        fakeErrorCodes.validationFailed,
        "invalid fault",
        result.error.issues.map(describeIssue),
      );
    }
    const stored: StoredFault = {
      id: `fault-${this.#nextId++}`,
      spec: result.data as FaultSpec,
      fired: 0,
      remaining: result.data.count ?? null,
    };
    this.#faults.push(stored);
    return snapshot(stored);
  }

  remove(id: string): boolean {
    const before = this.#faults.length;
    this.#faults = this.#faults.filter((fault) => fault.id !== id);
    return this.#faults.length !== before;
  }

  clear(): void {
    this.#faults = [];
  }

  list(): readonly ActiveFault[] {
    return this.#faults.map(snapshot);
  }

  /**
   * Decides which faults hit a request. Every matching latency fault adds up; the first
   * matching fault of another kind wins and later ones are not consulted (their counts and the
   * random stream stay untouched).
   */
  decide(context: FaultContext): FaultDecision {
    let latencyMs = 0;
    let outcome: FaultDecision["outcome"];
    const fired: string[] = [];
    for (const fault of this.#faults) {
      const { spec } = fault;
      if (spec.kind !== "latency" && outcome !== undefined) continue;
      if (!matches(spec, context)) continue;
      if (spec.rate !== undefined && spec.rate < 1 && !this.#random.chance(spec.rate)) continue;
      fault.fired++;
      if (fault.remaining !== null) fault.remaining--;
      fired.push(spec.kind);
      if (spec.kind === "latency") {
        latencyMs += spec.ms + (spec.jitterMs ? this.#random.next() * spec.jitterMs : 0);
      } else {
        outcome = spec;
      }
    }
    this.#faults = this.#faults.filter((fault) => fault.remaining !== 0);
    return { latencyMs: Math.round(latencyMs), outcome, fired };
  }
}
