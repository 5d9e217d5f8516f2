/*
 * A rewards ledger fed by sds-sync through NATS JetStream (docs/events.md): a durable consumer
 * that credits a member's points on a complete and takes them back on a reversal, with no polling.
 *
 *   node apps/sync/examples/ledger-consumer.ts [nats://127.0.0.1:4222] [stream] [prefix]
 *
 * (Node.js 22.18 or later runs a .ts file as it is; on 22.13 to 22.17 add --experimental-strip-types.)
 *
 * JetStream delivers at least once: a message whose acknowledgement was lost comes again. The
 * ledger is made idempotent by the outcome's `sequence` (the `Nats-Msg-Id` is `outcome-<sequence>`):
 * a real ledger stores it in the same transaction as the booking; this one keeps it in memory.
 */
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";

/** The body of an outcome event: the record of GET /v1/outcomes plus the entry's uid and the survey's Cpi. */
interface OutcomeEvent {
  readonly sequence: number;
  readonly token: string;
  readonly outcome: "complete" | "terminate" | "overquota" | "security";
  readonly previousOutcome: "complete" | "terminate" | "overquota" | "security" | null;
  readonly surveyId: number | null;
  readonly receivedAt: string;
  readonly uid: string | null;
  readonly Cpi: string | null;
}

const [server = "nats://127.0.0.1:4222", stream = "SDS", prefix = "sds"] = process.argv.slice(2);
const durable = "rewards-ledger";

const connection = await connect({ servers: server, name: "rewards-ledger" });
const manager = await jetstreamManager(connection);
// A durable consumer remembers where the ledger stopped, across restarts of the ledger.
try {
  await manager.consumers.info(stream, durable);
} catch {
  await manager.consumers.add(stream, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: `${prefix}.outcomes.>`,
  });
}
const consumer = await jetstream(connection).consumers.get(stream, durable);
const booked = new Set<number>();
/** What each token's complete credited: a reversal takes back exactly that, whatever the survey's Cpi is now. */
const credits = new Map<string, { readonly member: string; readonly points: number }>();
const balances = new Map<string, number>();

process.stdout.write(`ledger: following ${prefix}.outcomes.> on ${server} (stream ${stream}, consumer ${durable})\n`);
for await (const message of await consumer.consume()) {
  const event = message.json<OutcomeEvent>();
  if (!booked.has(event.sequence)) book(event);
  booked.add(event.sequence);
  message.ack();
}

function book(event: OutcomeEvent): void {
  if (event.outcome === "complete" && event.uid !== null && event.Cpi !== null) {
    // Points in cents of the survey's Cpi (a string, as the marketplace sent it).
    const credit = { member: event.uid, points: Math.round(Number(event.Cpi) * 100) };
    credits.set(event.token, credit);
    const balance = (balances.get(credit.member) ?? 0) + credit.points;
    balances.set(credit.member, balance);
    process.stdout.write(`credit ${credit.member} +${credit.points} (outcome ${event.sequence}) balance ${balance}\n`);
    return;
  }
  const credit = event.previousOutcome === "complete" ? credits.get(event.token) : undefined;
  if (credit === undefined) return;
  credits.delete(event.token);
  const balance = (balances.get(credit.member) ?? 0) - credit.points;
  balances.set(credit.member, balance);
  process.stdout.write(
    `debit ${credit.member} -${credit.points} (reversal ${event.sequence}: ${event.outcome}) balance ${balance}\n`,
  );
}
