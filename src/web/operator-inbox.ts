/**
 * The operator's inbox at `/asks`: the asks of the store (of every service sharing it), read with
 * `service.list`. Without a filter, asks still waiting for a person (pending, deferred) come
 * first, then the most recent outcomes; `?state=` shows the asks in those states, a page at a
 * time. The list never shows answers: only who answered, which is never redacted.
 */
import { ASK_STATES, type AskState, isAskState } from '../engine/audit.js';
import type { AskInfo } from '../engine/service-contract.js';
import { decidedBy } from '../rules/quorum.js';
import type { AskListResult, UnreadableAsk } from '../stores/ask-query.js';
import { OPEN_STATES } from './ask-state.js';
import { type Html, html, shownText } from './html.js';
import { timeCell } from './shown-time.js';

/** Asks per page unless `?limit=` says otherwise. */
export const INBOX_DEFAULT_LIMIT = 50;
/** The most `?limit=` may ask for. */
export const INBOX_MAX_LIMIT = 200;

const WAITING = OPEN_STATES;
const SETTLED: readonly AskState[] = ASK_STATES.filter((state) => !WAITING.includes(state));

/** What the inbox shows: a filtered page, or (no `state`) the waiting and the recent sections. */
export interface InboxQuery {
  states?: readonly AskState[];
  cursor?: string;
  limit: number;
}

/** The inbox query of a URL, or the problem with it in words. */
export function readInboxQuery(url: URL): InboxQuery | { problem: string } {
  const states: AskState[] = [];
  for (const value of url.searchParams.getAll('state')) {
    for (const state of value.split(',')) {
      if (!isAskState(state)) {
        return {
          problem: `Unknown state ${JSON.stringify(state)} in ?state=; expected one of ${ASK_STATES.join(', ')}.`,
        };
      }
      if (!states.includes(state)) states.push(state);
    }
  }
  const limitText = url.searchParams.get('limit');
  let limit = INBOX_DEFAULT_LIMIT;
  if (limitText !== null) {
    limit = /^[0-9]{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= 1 && limit <= INBOX_MAX_LIMIT)) {
      return {
        problem: `?limit= must be a whole number from 1 to ${INBOX_MAX_LIMIT}, got ${JSON.stringify(limitText)}.`,
      };
    }
  }
  const cursor = url.searchParams.get('cursor') ?? undefined;
  if (cursor !== undefined && states.length === 0) {
    return { problem: 'A ?cursor= pages through one list: give its ?state= too.' };
  }
  const query: InboxQuery = { limit };
  if (states.length > 0) query.states = states;
  if (cursor !== undefined) query.cursor = cursor;
  return query;
}

/** One section of the page: which states it lists, and the page of asks read for it. */
export interface InboxSection {
  id: string;
  title: string;
  states: readonly AskState[];
  /** True on a list's first page: new asks are added to it live. */
  first: boolean;
  page: AskListResult<AskInfo>;
}

/** The sections a query shows, each read with `list`. */
export async function readInboxSections(
  query: InboxQuery,
  list: (
    states: readonly AskState[],
    cursor: string | undefined,
  ) => Promise<AskListResult<AskInfo>>,
): Promise<InboxSection[]> {
  if (query.states !== undefined) {
    return [
      {
        id: 'asks',
        title: `Asks ${query.states.join(', ')}`,
        states: query.states,
        first: query.cursor === undefined,
        page: await list(query.states, query.cursor),
      },
    ];
  }
  const [waiting, settled] = await Promise.all([
    list(WAITING, undefined),
    list(SETTLED, undefined),
  ]);
  return [
    { id: 'waiting', title: 'Waiting for a person', states: WAITING, first: true, page: waiting },
    { id: 'settled', title: 'Recent outcomes', states: SETTLED, first: true, page: settled },
  ];
}

/**
 * The sections as HTML. `token` is the operator token, carried in every link of the view;
 * `limit` is kept in the links to further pages.
 */
export function renderInboxSections(
  sections: readonly InboxSection[],
  token: string,
  limit: number,
): Html {
  const query = `?token=${encodeURIComponent(token)}`;
  const pageQuery = limit === INBOX_DEFAULT_LIMIT ? '' : `&limit=${limit}`;
  return html`${sections.map((section) => {
    const states = section.states.join(',');
    const more =
      section.page.cursor === undefined
        ? ''
        : html`<p class="more"><a href="asks${query}&state=${states}${pageQuery}&cursor=${encodeURIComponent(section.page.cursor)}">${section.first ? 'More' : 'Next page'}</a></p>`;
    const back = section.first
      ? ''
      : html`<p class="more"><a href="asks${query}&state=${states}${pageQuery}">First page</a></p>`;
    return html`<section aria-labelledby="${section.id}-title">
<h2 id="${section.id}-title">${section.title}</h2>
<div class="table-scroll"><table id="${section.id}" class="asks" data-states="${section.states.join(' ')}" data-first="${section.first}"><thead><tr><th scope="col">Ask</th><th scope="col">State</th><th scope="col">Question</th><th scope="col">Agent</th><th scope="col">Created</th><th scope="col">Last change</th><th scope="col">Deadline</th><th scope="col">Answered by</th></tr></thead><tbody>
${section.page.items.map((ask) => inboxRow(ask, query))}${(section.page.unreadable ?? []).map(unreadableRow)}
</tbody></table></div>
${section.page.items.length === 0 && section.page.unreadable === undefined ? html`<p class="empty">None.</p>` : ''}${more}${back}
</section>`;
  })}`;
}

/** A row of the store that failed its check: named, marked, and why; the others are listed. */
function unreadableRow(ask: UnreadableAsk): Html {
  return html`<tr class="unreadable" data-ask="${ask.askId}"><td>${shownText(ask.askId)}</td><td colspan="7" role="alert">Unreadable: ${shownText(ask.problem)}</td></tr>`;
}

function inboxRow(ask: AskInfo, query: string): Html {
  const answeredBy = decidedByText(ask.outcome);
  return html`<tr data-ask="${ask.askId}"><td><a href="asks/${encodeURIComponent(ask.askId)}${query}">${ask.askId}</a></td><td class="ask-state">${ask.state}</td><td class="questions">${ask.questions.map((question, i) => html`${i === 0 ? '' : ', '}${shownText(question.question)}`)}</td><td>${ask.agent === undefined ? '–' : shownText(ask.agent)}</td>${timeCell(ask.createdAt)}${timeCell(ask.updatedAt, 'updated')}${ask.deadlineAt === undefined ? html`<td>–</td>` : timeCell(ask.deadlineAt)}<td class="answered-by">${answeredBy === undefined ? '–' : shownText(answeredBy)}</td></tr>`;
}

/**
 * Who decided an ask, as the inbox shows it: who answered, who vetoed, or whose responses made
 * the quorum (names only, never what they answered).
 */
function decidedByText(outcome: AskInfo['outcome']): string | undefined {
  const decided = decidedBy(outcome);
  if (decided === undefined || decided.kind === 'no-quorum') return undefined;
  if (decided.kind === 'answer') return answeredByText(decided.answeredBy);
  return decided.kind === 'veto' ? `${decided.names[0]} (veto)` : decided.names.join(', ');
}

/** `alice@example.com (email)`: the recipient and, when known, the channel. */
export function answeredByText(by: { recipient: string; channel?: string }): string {
  return by.channel === undefined ? by.recipient : `${by.recipient} (${by.channel})`;
}
