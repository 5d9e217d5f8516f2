import { numberValue, type PlainSetting } from "../common/setting-parsers.ts";

/*
 * The listeners' rows of the configuration table: how many connections each holds and how long
 * the receiver's clients may take (connection-limits.ts, server.ts). The table (config/config.ts)
 * includes them like the loop's.
 */

/**
 * Defaults of `SYNC_MAX_CONNECTIONS` and `SYNC_MAX_CONNECTIONS_PER_ADDRESS`: two listeners at
 * 256 take 512 descriptors at most, half of the common 1,024 limit, leaving the rest to the
 * database pool, the upstream (up to SYNC_CONCURRENCY sockets), the SQLite files and the events out.
 */
export const DEFAULT_CONNECTION_LIMITS = { total: 256, perAddress: 64 } as const;
/** Default `SYNC_OUTCOMES_HEADERS_TIMEOUT`: a marketplace's S2S call sends its headers in one packet. */
export const DEFAULT_OUTCOMES_HEADERS_TIMEOUT_SECONDS = 10;

/** The listeners' settings, part of `SyncConfig`. */
export interface ConnectionConfig {
  /** `SYNC_MAX_CONNECTIONS`: open connections each listener holds at once; more are closed at once. @default 256 */
  readonly maxConnections?: number | undefined;
  /** `SYNC_MAX_CONNECTIONS_PER_ADDRESS`: open connections each listener holds from one client address. @default 64 */
  readonly maxConnectionsPerAddress?: number | undefined;
  /** `SYNC_OUTCOMES_HEADERS_TIMEOUT`: seconds the receiver's clients have to send a request's headers. @default 10 */
  readonly outcomesHeadersTimeoutSeconds?: number | undefined;
}

/** The listeners' rows of the configuration table, in the order `--help` lists them. */
export const connectionSettings = {
  maxConnections: {
    variable: "SYNC_MAX_CONNECTIONS",
    description: `Open connections (1 to 100000) each listener (the API's, the receiver's when SYNC_OUTCOMES_PORT is set) holds at once; one more is closed at once, unread. Each is a file descriptor: keep twice this well below the process's limit (LimitNOFILE in the systemd unit, ulimit -n), so the database pool, the upstream's sockets and the SQLite files keep theirs. Long-polls count (see SYNC_MAX_LONG_POLLS).`,
    parse: numberValue({ min: 1, max: 100_000, integer: true }),
    fallback: { kind: "default", raw: String(DEFAULT_CONNECTION_LIMITS.total) },
  },
  maxConnectionsPerAddress: {
    variable: "SYNC_MAX_CONNECTIONS_PER_ADDRESS",
    description:
      "Open connections (1 to 100000) each listener holds at once from one client address (an IPv6 client's /64); one more is closed at once, unread. Connections from loopback (a reverse proxy or a router on this host) and from SYNC_TRUSTED_PROXIES count toward SYNC_MAX_CONNECTIONS only. A router calling the API from another host keeps its connection pool below this.",
    parse: numberValue({ min: 1, max: 100_000, integer: true }),
    fallback: { kind: "default", raw: String(DEFAULT_CONNECTION_LIMITS.perAddress) },
  },
  outcomesHeadersTimeoutSeconds: {
    variable: "SYNC_OUTCOMES_HEADERS_TIMEOUT",
    description:
      "Seconds (0.1 to 60, decimals allowed) a client of the outcome receiver's own listener (SYNC_OUTCOMES_PORT) has, from its connection on, to send a request's headers; then 408 and the connection closes, so slow or idle clients cannot hold the port. The API's listener allows 30.",
    parse: numberValue({ min: 0.1, max: 60, integer: false }),
    fallback: { kind: "default", raw: String(DEFAULT_OUTCOMES_HEADERS_TIMEOUT_SECONDS) },
  },
} as const satisfies { readonly [Key in keyof ConnectionConfig]-?: PlainSetting<NonNullable<ConnectionConfig[Key]>> };
