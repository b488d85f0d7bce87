/**
 * Discord's inbound check, whole: the Ed25519 signature over timestamp + body and a freshness
 * window on that timestamp. The Discord adapter (`@chat-adapter/discord` 4.41) checks the
 * signature only, so a click captured once replays for ever; this verifier, given to the
 * adapter as its `webhookVerifier`, refuses a stale or future timestamp as well.
 */
import { createPublicKey, type KeyObject, verify } from 'node:crypto';

/** Options of {@link verifyDiscordRequests}. */
export interface DiscordRequestCheck {
  /** The application's public key, 64 hex characters, as the Discord developer portal shows it. */
  publicKey: string;
  /** How far, in seconds, the signed timestamp may be from now, either way. Default 300. */
  maxAgeSeconds?: number;
  /** The clock, in milliseconds since the epoch (tests inject one). Default `Date.now`. */
  now?: () => number;
}

/** Default freshness window: five minutes, Slack's window for its own signatures. */
export const DISCORD_MAX_AGE_SECONDS = 300;

// An Ed25519 public key in SPKI DER is this 12-byte header and the 32-byte key.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const HEX_KEY = /^[0-9a-f]{64}$/i;
const HEX_SIGNATURE = /^[0-9a-f]{128}$/i;
const TIMESTAMP = /^[0-9]{1,12}$/;

/**
 * A Discord webhook verifier: `true` only for a request whose `x-signature-ed25519` is the
 * application key's signature of `x-signature-timestamp` + the raw body and whose timestamp is
 * within `maxAgeSeconds` of now. Anything else (a header missing or malformed, another body, an
 * old or future timestamp) is `false`, and the adapter answers 401 before reading the body.
 *
 * @example
 * createDiscordAdapter({ webhookVerifier: verifyDiscordRequests({ publicKey }) });
 */
export function verifyDiscordRequests(
  check: DiscordRequestCheck,
): (request: Request, body: string) => boolean {
  const key = discordPublicKey(check.publicKey);
  const maxAge = check.maxAgeSeconds ?? DISCORD_MAX_AGE_SECONDS;
  if (!Number.isInteger(maxAge) || maxAge < 1) {
    throw new TypeError(
      `Expected \`maxAgeSeconds\` to be a whole number of seconds from 1 up, got ${String(maxAge)}.`,
    );
  }
  const now = check.now ?? Date.now;
  return (request, body) => {
    const signature = request.headers.get('x-signature-ed25519') ?? '';
    const timestamp = request.headers.get('x-signature-timestamp') ?? '';
    if (!HEX_SIGNATURE.test(signature) || !TIMESTAMP.test(timestamp)) return false;
    if (Math.abs(now() / 1000 - Number(timestamp)) > maxAge) return false;
    return verify(null, Buffer.from(timestamp + body), key, Buffer.from(signature, 'hex'));
  };
}

function discordPublicKey(hex: string): KeyObject {
  if (!HEX_KEY.test(hex)) {
    throw new TypeError(
      `Expected \`publicKey\` to be the Discord application's public key, 64 hex characters, got ${hex.length} characters. Copy it from the developer portal (General Information, Public Key) or DISCORD_PUBLIC_KEY.`,
    );
  }
  return createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, 'hex')]),
    format: 'der',
    type: 'spki',
  });
}
