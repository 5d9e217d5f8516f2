import { MAX_QUERY_LIST_ITEMS } from "@sds/sync-client";
import type { z } from "zod";
import { SyncError, type HttpMeaning } from "../common/errors.ts";

/*
 * The mechanism of query parameters: the error a bad one is answered with, how `/openapi.json`
 * describes one, and the small parsers every route's own query parser is built from.
 */

/** A request parameter is missing or malformed: answered 400 with this message. */
export class ParamError extends SyncError {
  override name = "ParamError" as const;
  /** The parameter at fault. */
  readonly param: string;
  constructor(param: string, message: string) {
    super(`${param}: ${message}`);
    this.param = param;
  }
  override get http(): HttpMeaning {
    return { status: 400, code: "bad_request", message: this.message, logged: false };
  }
}

/** Longest comma list (`language`, `device`) one query may carry: part of the contract, `@sds/sync-client`'s. */
export const MAX_LIST_ITEMS = MAX_QUERY_LIST_ITEMS;

/**
 * A query parameter as `/openapi.json` describes it. The parsers below are hand-written (they
 * name the parameter at fault and refuse impossible dates, which a zod schema of the query would
 * not say as well), so these declarations sit beside them: the parsers take their list of known
 * names from here, and the OpenAPI test sends real requests that a drift in either would fail.
 * A comma list (`explode: false`) is an array.
 */
export interface QueryParameter {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodType;
  readonly explode?: false;
}

/** @throws ParamError naming the first parameter not in `known`. */
export function rejectUnknown(params: URLSearchParams, known: ReadonlySet<string>): void {
  for (const name of params.keys()) {
    if (!known.has(name)) throw new ParamError(name, `unknown parameter; known: ${[...known].join(", ")}`);
  }
}

/** The one value of `name`, if any. @throws ParamError when it is given more than once. */
export function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new ParamError(name, "given more than once");
  return values[0];
}

/** A whole number in [min, max]. @throws ParamError */
export function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value)) throw new ParamError(name, `must be a whole number, got ${JSON.stringify(value)}`);
  const number = Number(value);
  if (number < min || number > max) throw new ParamError(name, `must be between ${min} and ${max}, got ${value}`);
  return number;
}

/** A non-negative decimal. @throws ParamError */
export function decimal(name: string, value: string): number {
  const number = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(number))
    throw new ParamError(name, `must be a non-negative number, got ${JSON.stringify(value)}`);
  return number;
}

/** A comma list of at most {@link MAX_LIST_ITEMS} items. @throws ParamError */
export function list(name: string, value: string): string[] {
  const items = value.split(",").map((item) => item.trim());
  if (items.length > MAX_LIST_ITEMS)
    throw new ParamError(name, `takes at most ${MAX_LIST_ITEMS} values, got ${items.length}`);
  return items;
}

const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/;

/**
 * An ISO 8601 date (`2024-02-29`, midnight UTC) or date-time (`2024-02-29T10:30:00Z`, with an
 * offset or without one, then local time), refusing impossible ones (`2024-02-30`, `T25:00`)
 * rather than letting Date roll them over into the next month or day.
 */
export function parseTimestamp(name: string, value: string): Date {
  const refuse = (why: string) =>
    new ParamError(name, `must be an ISO 8601 date or date-time${why}, got ${JSON.stringify(value)}`);
  const match = ISO_TIMESTAMP.exec(value);
  if (!match) throw refuse("");
  const field = (index: number): number => Number(match[index] ?? 0);
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 8, 9].map(field) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) throw refuse(" (no such day)");
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59)
    throw refuse(" (no such time)");
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw refuse("");
  return time;
}
