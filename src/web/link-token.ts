/** Signed answer-link tokens: HMAC-SHA256 over the ask id and an expiry, checked in constant time. */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a token was refused; each maps to one page and status. */
export type LinkTokenProblem = 'malformed' | 'signature' | 'expired';

export type LinkTokenCheck =
  | { ok: true; expiresAt: number }
  | { ok: false; problem: LinkTokenProblem };

export interface LinkTokenSigner {
  /** A token for `askId` that stops working at `expiresAt` (ms since the epoch). */
  sign(askId: string, expiresAt: number): string;
  /** Checks that `token` was signed for exactly this `askId` and has not expired at `now`. */
  verify(askId: string, token: string, now: number): LinkTokenCheck;
}

/** Shortest secret accepted: the HMAC key should carry at least as many bits as its output. */
export const MIN_SECRET_BYTES = 32;

const MAC_BYTES = 32;
// base36 expiry, a dot, 43 characters of unpadded base64url for the 32-byte MAC. A token has
// exactly one spelling, the one `sign` writes: the expiry without leading zeros (checked by
// spelling it again), and the MAC's last character, which carries 4 bits and 2 unused ones,
// with those zero (otherwise four spellings of one MAC would verify).
const TOKEN_SHAPE = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{42}[AEIMQUYcgkosw048])$/;

/**
 * Creates the signer for one server's links. The MAC covers a domain tag, the ask id and the
 * expiry, each length-delimited, so a token for one ask or one expiry never fits another.
 *
 * @example
 * const signer = createLinkTokenSigner(secret);
 * const token = signer.sign(askId, Date.now() + 3_600_000);
 * signer.verify(askId, token, Date.now()); // { ok: true, expiresAt }
 */
export function createLinkTokenSigner(secret: string | Uint8Array): LinkTokenSigner {
  const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  if (key.length < MIN_SECRET_BYTES) {
    throw new TypeError(
      `Expected \`secret\` to have at least ${MIN_SECRET_BYTES} bytes, got ${key.length}; generate one with crypto.randomBytes(32).`,
    );
  }
  const hmac = (askId: string, expiresAt: number) =>
    createHmac('sha256', key).update(macInput(askId, expiresAt));

  return {
    sign(askId, expiresAt) {
      if (!Number.isSafeInteger(expiresAt) || expiresAt <= 0) {
        throw new TypeError(
          `Expected \`expiresAt\` to be a positive integer (ms since the epoch), got ${String(expiresAt)}.`,
        );
      }
      return `${expiresAt.toString(36)}.${hmac(askId, expiresAt).digest('base64url')}`;
    },
    verify(askId, token, now) {
      const match = TOKEN_SHAPE.exec(token);
      if (match === null) return { ok: false, problem: 'malformed' };
      const expiresAt = Number.parseInt(match[1]!, 36);
      const given = Buffer.from(match[2]!, 'base64url');
      if (
        !Number.isSafeInteger(expiresAt) ||
        expiresAt.toString(36) !== match[1] ||
        given.length !== MAC_BYTES
      ) {
        return { ok: false, problem: 'malformed' };
      }
      // Signature before expiry: an expired token says "expired" only if it was ever genuine.
      if (!timingSafeEqual(given, hmac(askId, expiresAt).digest())) {
        return { ok: false, problem: 'signature' };
      }
      if (now >= expiresAt) return { ok: false, problem: 'expired' };
      return { ok: true, expiresAt };
    },
  };
}

/** Constant-time equality of two secrets of any length (compares their SHA-256 HMACs). */
export function secretsEqual(given: string, expected: string): boolean {
  const hash = (value: string) =>
    createHmac('sha256', 'ask-engine/web operator').update(value).digest();
  return timingSafeEqual(hash(given), hash(expected));
}

function macInput(askId: string, expiresAt: number): string {
  return `ask-engine/web answer v1\n${askId.length}:${askId}\n${expiresAt}`;
}
