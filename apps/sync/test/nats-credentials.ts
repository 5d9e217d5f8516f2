import { createHash, generateKeyPairSync, sign, type KeyObject } from "node:crypto";

/*
 * NATS decentralized auth for tests, with node:crypto alone: NKeys (Ed25519 keys in NATS's
 * base32 form) and the JWTs of an operator, an account with JetStream and a user, for a
 * nats-server in operator mode (resolver MEMORY) and a `.creds` file as `nsc` writes it.
 */

/** NKey prefix bytes (nkeys.js `Prefix`). */
const PREFIX = { seed: 18 << 3, operator: 14 << 3, account: 0, user: 20 << 3 } as const;
type Role = Exclude<keyof typeof PREFIX, "seed">;
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** CRC-16/XMODEM, NKeys' checksum. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

function base32(bytes: Uint8Array): string {
  let text = "";
  let value = 0;
  let bits = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    for (; bits >= 5; bits -= 5) text += BASE32.charAt((value >>> (bits - 5)) & 31);
  }
  if (bits > 0) text += BASE32.charAt((value << (5 - bits)) & 31);
  return text;
}

/** The payload with its checksum (little-endian), in base32. */
function encoded(payload: Uint8Array): string {
  const checksum = crc16(payload);
  return base32(Buffer.concat([payload, Buffer.from([checksum & 0xff, checksum >> 8])]));
}

/** An NKey: its public key (`O…`, `A…`, `U…`), its seed (`S…`) and the key to sign with. */
interface NKey {
  readonly publicKey: string;
  readonly seed: string;
  readonly privateKey: KeyObject;
}

function nkey(role: Role): NKey {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  const raw = (value: string | undefined) => Buffer.from(value ?? "", "base64url");
  const prefix = PREFIX[role];
  return {
    publicKey: encoded(Buffer.concat([Buffer.from([prefix]), raw(publicKey.export({ format: "jwk" }).x)])),
    seed: encoded(Buffer.concat([Buffer.from([PREFIX.seed | (prefix >> 5), (prefix & 31) << 3]), raw(jwk.d)])),
    privateKey,
  };
}

/** A NATS JWT (`ed25519-nkey`) of `subject`, issued and signed by `issuer`. */
function jwt(issuer: NKey, subject: string, nats: Record<string, unknown>): string {
  const header = Buffer.from(JSON.stringify({ typ: "JWT", alg: "ed25519-nkey" })).toString("base64url");
  const unsigned = {
    iat: Math.floor(Date.now() / 1000),
    iss: issuer.publicKey,
    name: subject.slice(0, 8),
    sub: subject,
    nats,
  };
  const jti = base32(createHash("sha256").update(JSON.stringify(unsigned)).digest());
  const claims = Buffer.from(JSON.stringify({ jti, ...unsigned })).toString("base64url");
  const signature = sign(null, Buffer.from(`${header}.${claims}`), issuer.privateKey).toString("base64url");
  return `${header}.${claims}.${signature}`;
}

/** What a test needs for decentralized auth: the server's configuration and a user's `.creds` text. */
export interface NatsCredentials {
  /** Lines for the server's configuration file: the operator, its account and system account, preloaded. */
  readonly serverConfig: string;
  /** The user's `.creds` file (its JWT and NKey seed), as `nsc` writes it. */
  readonly creds: string;
  /** The user's seed: a secret that must never be logged. */
  readonly userSeed: string;
}

/** An operator, an account allowed JetStream, and a user of that account. */
export function natsCredentials(): NatsCredentials {
  const operator = nkey("operator");
  const account = nkey("account");
  // JetStream in operator mode needs a system account.
  const system = nkey("account");
  const user = nkey("user");
  const unlimited = { subs: -1, data: -1, payload: -1 };
  const operatorJwt = jwt(operator, operator.publicKey, { type: "operator", version: 2 });
  const accountJwt = jwt(operator, account.publicKey, {
    type: "account",
    version: 2,
    limits: {
      ...unlimited,
      imports: -1,
      exports: -1,
      wildcards: true,
      conn: -1,
      leaf: -1,
      mem_storage: -1,
      disk_storage: -1,
      streams: -1,
      consumer: -1,
    },
  });
  const systemJwt = jwt(operator, system.publicKey, {
    type: "account",
    version: 2,
    limits: { ...unlimited, conn: -1 },
  });
  const userJwt = jwt(account, user.publicKey, { type: "user", version: 2, pub: {}, sub: {}, ...unlimited });
  return {
    serverConfig: [
      `operator: ${operatorJwt}`,
      `system_account: ${system.publicKey}`,
      "resolver: MEMORY",
      `resolver_preload: {\n  ${account.publicKey}: ${accountJwt}\n  ${system.publicKey}: ${systemJwt}\n}`,
      "",
    ].join("\n"),
    creds: [
      "-----BEGIN NATS USER JWT-----",
      userJwt,
      "------END NATS USER JWT------",
      "",
      "-----BEGIN USER NKEY SEED-----",
      user.seed,
      "------END USER NKEY SEED------",
      "",
    ].join("\n"),
    userSeed: user.seed,
  };
}
