/**
 * The `requestState` of a 2026-era ask: which ask it names, for which `ask_user` call, until
 * when, and which round of the form it is. Sealed with the answer links' HMAC rules.
 */
import { createHmac } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import {
  createLinkTokenSigner,
  type LinkTokenProblem,
  MIN_SECRET_BYTES,
} from '../web/link-token.js';

/** What a sealed `requestState` carries. */
export interface RequestState {
  askId: string;
  /** 1 for the first form, one more each time a refused answer sends it back. */
  round: number;
  /** When the state stops being accepted (ms since the epoch). */
  expiresAt: number;
}

/** Seals and opens the `requestState` of one server (every process sharing its secret). */
export interface RequestStateSeal {
  /** The state for the call whose arguments digest to `callDigest` (see `callDigest`). */
  seal(state: RequestState, callDigest: string): string;
  /**
   * The state `sealed` carries, if this server's secret sealed it for this very call and it has
   * not expired at `now`; otherwise throws an MCP `InvalidParams` error saying which.
   */
  open(sealed: string, callDigest: string, now: number): RequestState;
}

// `v1.<askId in base64url>.<round in base36>.<link token>`: the token is the answer links'
// (expiry and MAC), signed over the ask, the round and the call, with a key of its own.
const STATE_SHAPE = /^v1\.([A-Za-z0-9_-]{2,1024})\.([1-9a-z][0-9a-z]{0,3})\.([0-9a-z.A-Z_-]+)$/;

/**
 * Creates the seal for `secret` (at least 32 bytes, shared by every process a retry may reach).
 * The MAC key is derived from the secret for this purpose alone, so a `requestState` is never
 * an answer link's token, nor the other way round, even under one secret.
 *
 * @example
 * const seal = createRequestStateSeal(secret);
 * const sealed = seal.seal({ askId, round: 1, expiresAt }, callDigest('ask_user', args));
 */
export function createRequestStateSeal(secret: string | Uint8Array): RequestStateSeal {
  const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  if (key.length < MIN_SECRET_BYTES) {
    throw new TypeError(
      `Expected \`secret\` to have at least ${MIN_SECRET_BYTES} bytes, got ${key.length}; generate one with crypto.randomBytes(32).`,
    );
  }
  const signer = createLinkTokenSigner(
    createHmac('sha256', key).update('ask-engine/mcp requestState v1').digest(),
  );
  return {
    seal(state, callDigest) {
      const token = signer.sign(scope(state.askId, state.round, callDigest), state.expiresAt);
      return `v1.${Buffer.from(state.askId, 'utf8').toString('base64url')}.${state.round.toString(36)}.${token}`;
    },
    open(sealed, callDigest, now) {
      const match = STATE_SHAPE.exec(sealed);
      const askId = match === null ? undefined : unspell(match[1]!);
      const round = match === null ? Number.NaN : Number.parseInt(match[2]!, 36);
      if (match === null || askId === undefined || round.toString(36) !== match[2]) {
        throw refused('malformed', sealed);
      }
      const check = signer.verify(scope(askId, round, callDigest), match[3]!, now);
      if (!check.ok) throw refused(check.problem, sealed);
      return { askId, round, expiresAt: check.expiresAt };
    },
  };
}

/** What the MAC covers: the ask, the round and the call, each length-delimited. */
function scope(askId: string, round: number, callDigest: string): string {
  return `mcp requestState\n${askId.length}:${askId}\nround ${round}\ncall ${callDigest}`;
}

function unspell(spelled: string): string | undefined {
  const bytes = Buffer.from(spelled, 'base64url');
  if (bytes.toString('base64url') !== spelled) return undefined;
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

const PROBLEMS: Record<LinkTokenProblem, string> = {
  malformed: 'is not a requestState this server writes',
  signature:
    'does not verify: it was altered, sealed by a server with another secret, or sealed for another ask_user call (other arguments)',
  expired: 'has expired (it lasts requestStateTtlMs past the ask’s deadline, or past the call)',
};

function refused(problem: LinkTokenProblem, sealed: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `The ask_user requestState ${PROBLEMS[problem]}; nothing was answered. Call ask_user again without requestState and inputResponses to ask anew.`,
    { reason: 'invalid_request_state', problem, length: sealed.length },
  );
}
