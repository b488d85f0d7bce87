/**
 * Signed link tokens: HMAC-SHA256 over the ask id, an expiry and, for a recipient's own link,
 * who it is for; a recipient's inbox token over who it is for and an expiry; a push button's
 * pick token over the ask, one option, who it is for and an expiry. Checked in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AnsweredBy } from '../contracts/outcome.js';
import { readAnsweredBy } from '../rules/answered-by.js';

/** Why a token was refused; each maps to one page and status. */
export type LinkTokenProblem = 'malformed' | 'signature' | 'expired';

export type LinkTokenCheck =
  | { ok: true; expiresAt: number; by?: AnsweredBy }
  | { ok: false; problem: LinkTokenProblem };

/** What checking an inbox or pick token gives: whom it is for, or why it was refused. */
export type RecipientTokenCheck =
  | { ok: true; expiresAt: number; by: AnsweredBy }
  | { ok: false; problem: LinkTokenProblem };

export interface LinkTokenSigner {
  /**
   * A token for `askId` that stops working at `expiresAt` (ms since the epoch). With `by`, the
   * token is one recipient's: whoever answers through it answers as `by`. Throws
   * `INVALID_REQUEST` for a `by` that `service.answer` would refuse.
   */
  sign(askId: string, expiresAt: number, by?: AnsweredBy): string;
  /**
   * Checks that `token` was signed for exactly this `askId` and has not expired at `now`; a
   * recipient's token gives back who it was signed for.
   */
  verify(askId: string, token: string, now: number): LinkTokenCheck;
  /**
   * A token for `by`'s inbox (the list of their open asks) that stops working at `expiresAt`.
   * It opens no ask: each ask in the inbox has its own link. Throws `INVALID_REQUEST` for a
   * `by` that `service.answer` would refuse.
   */
  signInbox(by: AnsweredBy, expiresAt: number): string;
  /** Checks an inbox token at `now`, and gives back whom it was signed for. */
  verifyInbox(token: string, now: number): RecipientTokenCheck;
  /**
   * A token that answers `askId` with the option at 1-based `position` of its one question, as
   * `by`, until `expiresAt`: a push notification's button. It fits no other ask, option or
   * person, and opens no page. Throws `INVALID_REQUEST` for a `by` that `service.answer` would
   * refuse.
   */
  signPick(askId: string, position: number, by: AnsweredBy, expiresAt: number): string;
  /** Checks a pick token for exactly this ask and option at `now`, and gives back whom it is for. */
  verifyPick(askId: string, position: number, token: string, now: number): RecipientTokenCheck;
}

/** Shortest secret accepted: the HMAC key should carry at least as many bits as its output. */
export const MIN_SECRET_BYTES = 32;

const MAC_BYTES = 32;
// base36 expiry, a dot, for a recipient's link their recipient and (optional) channel each in
// unpadded base64url of UTF-8 followed by a dot, then 43 characters of unpadded base64url for
// the 32-byte MAC. A token has exactly one spelling, the one `sign` writes: the expiry without
// leading zeros and each name as base64url writes it (both checked by spelling them again),
// and the MAC's last character, which carries 4 bits and 2 unused ones, with those zero
// (otherwise four spellings of one MAC would verify). 1,024 characters hold any name
// `readAnsweredBy` accepts (256 UTF-16 units are at most 768 bytes of UTF-8).
const TOKEN_SHAPE =
  /^([0-9a-z]{1,12})\.(?:([A-Za-z0-9_-]{2,1024})\.(?:([A-Za-z0-9_-]{2,1024})\.)?)?([A-Za-z0-9_-]{42}[AEIMQUYcgkosw048])$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Creates the signer for one server's links. The MAC covers a domain tag, the ask id, the
 * expiry and a recipient's names, each length-delimited, so a token for one ask, one expiry or
 * one recipient never fits another.
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
  const hmac = (scope: string, expiresAt: number, by: AnsweredBy | undefined) =>
    createHmac('sha256', key).update(macInput(scope, expiresAt, by));

  /** A token for what `scope` names (an ask, or an inbox). */
  const sign = (scope: string, expiresAt: number, by: AnsweredBy | undefined): string => {
    if (!Number.isSafeInteger(expiresAt) || expiresAt <= 0) {
      throw new TypeError(
        `Expected \`expiresAt\` to be a positive integer (ms since the epoch), got ${String(expiresAt)}.`,
      );
    }
    const bound = by === undefined ? undefined : readAnsweredBy(by, '');
    const names =
      bound === undefined
        ? ''
        : `${spell(bound.recipient)}.${bound.channel === undefined ? '' : `${spell(bound.channel)}.`}`;
    return `${expiresAt.toString(36)}.${names}${hmac(scope, expiresAt, bound).digest('base64url')}`;
  };

  const verify = (scope: string, token: string, now: number): LinkTokenCheck => {
    const match = TOKEN_SHAPE.exec(token);
    if (match === null) return { ok: false, problem: 'malformed' };
    const expiresAt = Number.parseInt(match[1]!, 36);
    const given = Buffer.from(match[4]!, 'base64url');
    if (
      !Number.isSafeInteger(expiresAt) ||
      expiresAt.toString(36) !== match[1] ||
      given.length !== MAC_BYTES
    ) {
      return { ok: false, problem: 'malformed' };
    }
    let by: AnsweredBy | undefined;
    if (match[2] !== undefined) {
      by = readNames(match[2], match[3]);
      if (by === undefined) return { ok: false, problem: 'malformed' };
    }
    // Signature before expiry: an expired token says "expired" only if it was ever genuine.
    if (!timingSafeEqual(given, hmac(scope, expiresAt, by).digest())) {
      return { ok: false, problem: 'signature' };
    }
    if (now >= expiresAt) return { ok: false, problem: 'expired' };
    return by === undefined ? { ok: true, expiresAt } : { ok: true, expiresAt, by };
  };

  return {
    sign: (askId, expiresAt, by) => sign(answerScope(askId), expiresAt, by),
    verify: (askId, token, now) => verify(answerScope(askId), token, now),
    signInbox: (by, expiresAt) => {
      if (by === undefined) {
        throw new TypeError('Expected the recipient an inbox link is for, got undefined.');
      }
      return sign(INBOX_SCOPE, expiresAt, by);
    },
    verifyInbox: (token, now) => withRecipient(verify(INBOX_SCOPE, token, now)),
    signPick: (askId, position, by, expiresAt) => {
      if (by === undefined) {
        throw new TypeError('Expected the recipient a pick link is for, got undefined.');
      }
      return sign(pickScope(askId, position), expiresAt, by);
    },
    verifyPick: (askId, position, token, now) =>
      withRecipient(verify(pickScope(askId, position), token, now)),
  };
}

/** Only a recipient's token is signed for an inbox or a pick; one without names never verifies. */
function withRecipient(check: LinkTokenCheck): RecipientTokenCheck {
  if (!check.ok) return check;
  return check.by === undefined
    ? { ok: false, problem: 'signature' }
    : { ok: true, expiresAt: check.expiresAt, by: check.by };
}

/** Constant-time equality of two secrets of any length (compares their SHA-256 HMACs). */
export function secretsEqual(given: string, expected: string): boolean {
  const hash = (value: string) =>
    createHmac('sha256', 'ask-engine/web operator').update(value).digest();
  return timingSafeEqual(hash(given), hash(expected));
}

/** What an answer token is for: one ask, length-delimited. */
function answerScope(askId: string): string {
  return `answer v1\n${askId.length}:${askId}`;
}

/** What a pick token is for: one option of one ask, so it fits no page link and no other option. */
function pickScope(askId: string, position: number): string {
  if (!Number.isSafeInteger(position) || position < 1) {
    throw new TypeError(`Expected an option position from 1 up, got ${String(position)}.`);
  }
  return `pick v1\n${askId.length}:${askId}\noption ${position}`;
}

/** What an inbox token is for: no ask, so it never fits an answer link (nor one the other). */
const INBOX_SCOPE = 'recipient inbox v1';

function macInput(scope: string, expiresAt: number, by: AnsweredBy | undefined): string {
  const link = `ask-engine/web ${scope}\n${expiresAt}`;
  if (by === undefined) return link;
  const { recipient, channel } = by;
  // Every part length-delimited: no recipient can end where a channel begins.
  return `${link}\nrecipient ${recipient.length}:${recipient}\n${
    channel === undefined ? 'no channel' : `channel ${channel.length}:${channel}`
  }`;
}

function spell(name: string): string {
  return Buffer.from(name, 'utf8').toString('base64url');
}

/** The names a token spells, if they are spelled as `sign` spells them and `sign` would sign them. */
function readNames(recipient: string, channel: string | undefined): AnsweredBy | undefined {
  try {
    const names = { recipient: unspell(recipient) };
    return readAnsweredBy(
      channel === undefined ? names : { ...names, channel: unspell(channel) },
      '',
    );
  } catch {
    return undefined;
  }
}

/** A name from its spelling; throws for any spelling but the one `spell` writes, or bad UTF-8. */
function unspell(spelled: string): string {
  const bytes = Buffer.from(spelled, 'base64url');
  if (bytes.toString('base64url') !== spelled) throw new TypeError('Not the canonical spelling.');
  return UTF8.decode(bytes);
}
