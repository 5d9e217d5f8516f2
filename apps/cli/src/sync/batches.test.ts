import { describe, expect, it } from "vitest";
import { readCheckedCsv } from "../framework/checked-csv.ts";
import type { CommandContext } from "../framework/command.ts";
import { createStyles } from "../framework/styles.ts";
import { sendInBatches } from "./batches.ts";

/** What sendInBatches reads of a command's context: stderr for the progress bar, and its styles. */
const context = {
  io: { stderr: { write: () => true, once: () => undefined } },
  output: { errorStyles: createStyles(false) },
} as unknown as CommandContext;

const tokens = readCheckedCsv({ required: ["token"], optional: [] }, (cell, line) => ({ line, token: cell("token") }));

describe("sendInBatches from a file read as a stream", () => {
  it("sends the first batch before the file is read to its end", async () => {
    let linesRead = 0;
    async function* neverEnding(): AsyncGenerator<string> {
      yield "token\n";
      for (;;) {
        linesRead += 1;
        yield `t${linesRead}\n`;
        // Past the second batch the writer stalls, as a slow pipe would: no end in sight.
        if (linesRead === 25) await new Promise(() => undefined);
      }
    }
    const source = {
      count: Number.POSITIVE_INFINITY,
      async *items() {
        for await (const checked of tokens(neverEnding())) if ("item" in checked) yield checked.item;
      },
    };
    const sent: string[][] = [];
    let resolveFirst: () => void = () => undefined;
    const firstSent = new Promise<void>((resolve) => (resolveFirst = resolve));
    void sendInBatches(context, source, {
      size: 10,
      label: "Sending",
      send: async (batch) => {
        sent.push(batch.map((item) => item.token));
        resolveFirst();
        return Promise.resolve();
      },
    });
    await firstSent;
    expect(sent[0]).toEqual(["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10"]);
    expect(linesRead).toBeLessThan(25);
  });

  it("names the lines sent and the line of the batch that failed", async () => {
    const items = Array.from({ length: 25 }, (_, index) => ({ line: index + 2 }));
    const run = await sendInBatches(
      context,
      {
        count: items.length,
        items: async function* () {
          for (const item of items) {
            await Promise.resolve();
            yield item;
          }
        },
      },
      {
        size: 10,
        label: "Sending",
        send: async (_batch, index) => (index === 1 ? Promise.reject(new Error("refused")) : Promise.resolve(index)),
      },
    );
    expect(run.answers).toEqual([0]);
    expect(run.failure).toMatchObject({ batch: 1, batches: 3, firstLine: 12, lastSentLine: 11 });
  });
});
