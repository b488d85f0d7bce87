/** The ntfy channel's options, checked once with an error that names the option and the fix. */
import { describe } from '../rules/describe.js';
import type { AnswerAppLinks } from '../web/answer-app.js';
import { readChannelName } from './channel-input.js';
import { readHttpTransport, readHttpUrl } from './http-post.js';

/** Options of `createNtfyChannel`: the ntfy server, its access token and the answer app. */
export interface NtfyChannelOptions {
  /** The ntfy server's base URL, e.g. `'https://ntfy.sh'` or `'https://ntfy.example.com'`. */
  server: string | URL;
  /**
   * The answer app (or web answer server) whose signed one-tap URLs become the message's
   * buttons (`pushActionsFor`): one per option of a single-choice question with at most 3
   * options. Without it, or for any other ask, tapping the message opens the recipient's page.
   */
  answers?: Pick<AnswerAppLinks, 'pushActionsFor'>;
  /** An ntfy access token (`tk_…`), sent as `Authorization: Bearer`, for protected topics. */
  token?: string | undefined;
  /** The channel name recipients refer to; `'ntfy'` unless given. */
  name?: string;
  /** ntfy priority (1 min to 5 max) of messages that ask for an answer; default 4 (high). */
  priority?: NtfyPriority;
  /** How long one publish may take before it counts as failed (default 10 000 ms). */
  timeoutMs?: number;
  /** The `fetch` to publish with (default the global one). */
  fetch?: typeof globalThis.fetch;
}

/** ntfy's priorities: 1 (min), 2 (low), 3 (default), 4 (high), 5 (max). */
export type NtfyPriority = 1 | 2 | 3 | 4 | 5;

export interface ResolvedNtfyOptions {
  /** Where JSON messages are published: the server's root. */
  publishUrl: URL;
  answers: Pick<AnswerAppLinks, 'pushActionsFor'> | undefined;
  authorization: string | undefined;
  name: string;
  priority: NtfyPriority;
  timeoutMs: number;
  fetch: typeof globalThis.fetch;
}

/** ntfy's topic names (its server's own rule): 1 to 64 letters, digits, `-` and `_`. */
const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;

/** The topic a recipient's address names; throws a `TypeError` naming the rule otherwise. */
export function readNtfyTopic(address: unknown): string {
  if (typeof address !== 'string' || !TOPIC.test(address)) {
    throw new TypeError(
      `Expected \`recipient.address\` to be an ntfy topic, 1 to 64 letters, digits, '-' or '_', got ${describe(address)}; a topic anyone can guess is anyone's to read, so use a long random one or an access-controlled topic.`,
    );
  }
  return address;
}

export function resolveNtfyOptions(options: NtfyChannelOptions): ResolvedNtfyOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      `Expected ntfy channel options { server, answers? }, got ${describe(options)}.`,
    );
  }
  const { answers, token, priority = 4 } = options;
  const { timeoutMs, fetch } = readHttpTransport(options);
  if (answers !== undefined && typeof answers?.pushActionsFor !== 'function') {
    throw new TypeError(
      `Expected \`answers\` to be the answer app or web answer server (it has pushActionsFor), got ${describe(answers)}.`,
    );
  }
  if (token !== undefined && (typeof token !== 'string' || !/^[\x21-\x7e]+$/.test(token))) {
    // The token itself is never quoted back.
    throw new TypeError(
      `Expected \`token\` to be an ntfy access token (printable ASCII, like 'tk_…'), got ${typeof token === 'string' ? `a string of ${token.length} characters that is not` : describe(token)}.`,
    );
  }
  if (![1, 2, 3, 4, 5].includes(priority)) {
    throw new TypeError(`Expected \`priority\` to be 1, 2, 3, 4 or 5, got ${describe(priority)}.`);
  }
  return {
    publishUrl: readServer(options.server),
    answers,
    authorization: token === undefined ? undefined : `Bearer ${token}`,
    name: readChannelName(options.name ?? 'ntfy'),
    priority,
    timeoutMs,
    fetch,
  };
}

function readServer(server: unknown): URL {
  const like = "the ntfy server's http(s) base URL like 'https://ntfy.sh'";
  const url = readHttpUrl(server, 'server', like, 'give an access token as `token`');
  if (url.search !== '' || url.hash !== '') {
    throw new TypeError(
      `Expected \`server\` to be ${like}, got ${describe(server instanceof URL ? server.href : server)}.`,
    );
  }
  // JSON messages are published to the server's root (below any path prefix it is served at).
  return new URL(`${url.origin}${url.pathname.replace(/\/*$/, '/')}`);
}
