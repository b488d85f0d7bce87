/**
 * A recipient's inbox at `inbox?t=<token>`: the open asks (pending, deferred) that a
 * notification reached this person about, newest first, each with their own answer link. The
 * token names the recipient and is checked before the store is read; the list is read with
 * `service.list({ notified, state })`, so it can hold no one else's asks. It shows questions,
 * never answers, and reading it changes nothing.
 */
import type { AnsweredBy } from '../contracts/outcome.js';
import type { Clock } from '../engine/clock.js';
import type { AskInfo } from '../engine/service-contract.js';
import { isUserInteractionError } from '../rules/errors.js';
import { renderNoticePage } from './answer-page.js';
import { OPEN_STATES } from './ask-state.js';
import { html, shownText } from './html.js';
import { htmlResponse } from './http-response.js';
import type { LinkTokenSigner } from './link-token.js';
import { renderPage } from './page-shell.js';
import { shownTime, timeCell } from './shown-time.js';
import type { WebAnswerService } from './web-service.js';

/** Asks per page of a recipient's inbox. */
export const RECIPIENT_INBOX_PAGE_SIZE = 50;

export interface RecipientInboxOptions {
  service: Pick<WebAnswerService, 'list'>;
  signer: Pick<LinkTokenSigner, 'verifyInbox'>;
  clock: Pick<Clock, 'now'>;
  /** The recipient's own answer link of `ask`, as a path relative to the inbox page. */
  answerPath(ask: AskInfo, by: AnsweredBy): string;
}

/** The inbox page for a request to `inbox` (GET or HEAD): the URL carries the token and cursor. */
export function createRecipientInbox(
  options: RecipientInboxOptions,
): (url: URL) => Promise<Response> {
  const { service, signer, clock, answerPath } = options;
  return async (url) => {
    // An inbox link has one token: a second `t` makes it no link of this app.
    const tokens = url.searchParams.getAll('t');
    const token = tokens.length === 1 ? tokens[0]! : '';
    const check = signer.verifyInbox(token, clock.now());
    if (!check.ok) {
      return check.problem === 'expired'
        ? htmlResponse(
            410,
            renderNoticePage(
              'This link has expired',
              'Inbox links work for a limited time. Ask the sender for a new link.',
            ),
          )
        : htmlResponse(
            403,
            renderNoticePage(
              'This link is not valid',
              'The link is incomplete or was not made for an inbox. Open the link exactly as you received it.',
            ),
          );
    }
    const { by, expiresAt } = check;
    const cursor = url.searchParams.get('cursor') ?? undefined;
    let page: Awaited<ReturnType<WebAnswerService['list']>>;
    try {
      page = await service.list(
        { notified: by.recipient, state: OPEN_STATES },
        { cursor, limit: RECIPIENT_INBOX_PAGE_SIZE },
      );
    } catch (error) {
      if (!isUserInteractionError(error, 'INVALID_REQUEST')) throw error;
      return htmlResponse(400, renderNoticePage('Not accepted', error.message));
    }
    const self = `inbox?t=${encodeURIComponent(token)}`;
    const main = html`
<h1>Questions waiting for you</h1>
<p class="answering-as">This list is yours: the open questions you were sent, as <strong>${shownText(by.recipient)}</strong>. Opening a question only shows it; nothing is decided until you answer.</p>
${
  page.items.length === 0
    ? html`<p class="empty" role="status">Nothing is waiting for you.</p>`
    : html`<div class="table-scroll"><table id="inbox" class="asks"><thead><tr><th scope="col">Question</th><th scope="col">From</th><th scope="col">Asked</th><th scope="col">Answer by</th></tr></thead><tbody>
${page.items.map(
  (ask) =>
    html`<tr data-ask="${ask.askId}"><td class="questions"><a class="answer" href="${answerPath(ask, by)}">${ask.questions.map((question, i) => html`${i === 0 ? '' : html`<br>`}${shownText(question.question)}`)}</a></td><td>${ask.agent === undefined ? '–' : shownText(ask.agent)}</td>${timeCell(ask.createdAt)}${ask.deadlineAt === undefined ? html`<td>–</td>` : timeCell(ask.deadlineAt)}</tr>`,
)}
</tbody></table></div>`
}
${page.cursor === undefined ? '' : html`<p class="more"><a href="${self}&cursor=${encodeURIComponent(page.cursor)}">More</a></p>`}
${cursor === undefined ? '' : html`<p class="more"><a href="${self}">First page</a></p>`}
<p class="note">This link works until ${shownTime(expiresAt)}.</p>`;
    return htmlResponse(200, renderPage({ title: 'Questions waiting for you', main, depth: 0 }));
  };
}
