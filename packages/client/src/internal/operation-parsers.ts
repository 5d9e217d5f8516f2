import { operations, type OperationId } from "@sds/schemas";
import type { z } from "zod";
import { schemaParser, type ResponseParser } from "./validate-response.ts";

/** The response type of an operation, from the `operations` table of `@sds/schemas`. */
export type ResponseOf<Id extends OperationId> = z.output<(typeof operations)[Id]["response"]>;

const parsers = new Map<OperationId, ResponseParser<unknown>>();

/** The parser of an operation's response schema (built once per operation). */
export function operationParser<Id extends OperationId>(operation: Id): ResponseParser<ResponseOf<Id>> {
  let parser = parsers.get(operation);
  if (parser === undefined) parsers.set(operation, (parser = schemaParser(operations[operation].response)));
  return parser as ResponseParser<ResponseOf<Id>>;
}
