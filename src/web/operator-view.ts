/**
 * The operator's read-only view at `/asks`: the inbox of the store's asks (waiting ones first,
 * then recent outcomes; filtered by state and paged, see operator-inbox.ts) under the ask
 * machine's statechart, each ask's stored history at `/asks/<askId>`, both updated live from the
 * audit events (server-sent events): the store's change feed when the app is given the store.
 */
import type { Observable, Subscription } from 'rxjs';
import { askMachine } from '../../machines/ask.machine.js';
import { ASK_STATES, type AskAuditEvent } from '../engine/audit.js';
import { messageOf } from '../rules/describe.js';
import { isUserInteractionError } from '../rules/errors.js';
import { Html, html, shownText } from './html.js';
import { htmlResponse } from './http-response.js';
import { secretsEqual } from './link-token.js';
import { createLiveStreams } from './live-stream.js';
import {
  answeredByText,
  type InboxSection,
  readInboxQuery,
  readInboxSections,
  renderInboxSections,
} from './operator-inbox.js';
import { renderPage } from './page-shell.js';
import { questionHeading } from './refusal-words.js';
import { shownTime, timeCell } from './shown-time.js';
import { layoutStatechart, renderStatechartSvg } from './statechart-svg.js';
import type { WebAnswerService } from './web-service.js';

/** The operator pages; each checks the operator token (`?token=`) in constant time first. */
export interface OperatorView {
  /** `asks`: the inbox, from the store, with the statechart. */
  list(url: URL): Promise<Response>;
  /** `asks/events`: the audit events as server-sent events. */
  stream(url: URL, signal?: AbortSignal): Response;
  /** `asks/<askId>`: one ask's state and stored history. */
  ask(askId: string, url: URL): Promise<Response>;
  close(): void;
}

export function createOperatorView(options: {
  service: WebAnswerService;
  operatorToken: string;
  /** Audit events to follow; default `service.events$` (the asks that service has open). */
  events$?: Observable<AskAuditEvent>;
  /** A live reader this many bytes behind is disconnected (it reconnects); default 1 MiB. */
  maxQueuedBytes?: number;
}): OperatorView {
  const { service, operatorToken, events$ = service.events$ } = options;
  const chart = layoutStatechart(askMachine);
  const streams = createLiveStreams(options.maxQueuedBytes);
  // Events go out in the order they came; a new ask's row needs its questions, read first.
  let sending: Promise<void> = Promise.resolve();
  const subscription: Subscription = events$.subscribe((event) => {
    sending = sending.then(async () => {
      const summary = eventSummary(
        event,
        event.type === 'start' ? await listRow(event.askId) : undefined,
      );
      streams.send(`event: audit\ndata: ${JSON.stringify(summary)}\n\n`);
    });
  });
  /** What a new row shows of an ask; undefined when it cannot be read (the row stays bare). */
  const listRow = async (askId: string): Promise<ListRow | undefined> => {
    try {
      const ask = await service.get(askId);
      if (ask === undefined) return undefined;
      return {
        questions: ask.questions.map((question) => question.question),
        agent: ask.agent,
        created: shownTime(ask.createdAt),
        deadline: ask.deadlineAt === undefined ? undefined : shownTime(ask.deadlineAt),
      };
    } catch {
      return undefined;
    }
  };
  // A comment line now and then keeps idle proxies from closing the stream.
  const heartbeat = setInterval(() => streams.send(': still here\n\n'), 25_000);
  heartbeat.unref?.();

  /** The token as given, or undefined when it is not the operator token. */
  const allowed = (url: URL): string | undefined => {
    const token = url.searchParams.get('token') ?? '';
    return secretsEqual(token, operatorToken) ? token : undefined;
  };

  return {
    async list(url) {
      const token = allowed(url);
      if (token === undefined) return notAllowed();
      const query = readInboxQuery(url);
      if ('problem' in query) return badQuery(query.problem);
      let sections: InboxSection[];
      try {
        sections = await readInboxSections(query, (states, cursor) =>
          service.list({ state: states }, { cursor, limit: query.limit }),
        );
      } catch (error) {
        // A cursor that is no cursor of this list: the caller's mistake, said as such.
        if (isUserInteractionError(error) && error.code === 'INVALID_REQUEST') {
          return badQuery(error.message);
        }
        throw error;
      }
      const live = `?token=${encodeURIComponent(token)}`;
      const listed = sections.flatMap((section) => section.page.items.map((ask) => ask.state));
      const main = html`<h1>Asks</h1>
<p class="lead">The asks in the store, of every service sharing it: those waiting for a person first, then the most recent outcomes, newest first. The statechart (drawn from machines/ask.machine.ts) marks the states of the asks listed; the page follows new events as they happen.</p>
<form class="filter" method="get" action="asks"><input type="hidden" name="token" value="${token}"><label for="state">State</label> <select id="state" name="state"><option value="">waiting, then recent outcomes</option>${askMachineStates.map((state) => html`<option value="${state}"${query.states?.length === 1 && query.states[0] === state ? html` selected` : ''}>${state}</option>`)}</select> <button type="submit">Show</button></form>
<div id="chart" class="chart-scroll">${rawSvg(renderStatechartSvg(chart, [...new Set(listed)]))}</div>
<div id="inbox" data-live-stream="asks/events${live}" data-query="${live}">
${renderInboxSections(sections, token, query.limit)}
</div>`;
      return htmlResponse(
        200,
        renderPage({ title: 'Asks', main, script: 'operator-view.js', depth: 0, wide: true }),
      );
    },
    stream(url, signal) {
      if (allowed(url) === undefined) return notAllowed();
      return streams.open(signal);
    },
    async ask(askId, url) {
      const token = allowed(url);
      if (token === undefined) return notAllowed();
      const query = `?token=${encodeURIComponent(token)}`;
      const ask = askId === '' ? undefined : await service.get(askId);
      if (ask === undefined) {
        return htmlResponse(
          404,
          renderPage({
            title: 'Not found',
            main: html`<h1>Not found</h1><p class="lead">No ask with this id in the store.</p>`,
            depth: 1,
          }),
        );
      }
      const history: AskAuditEvent[] = [];
      let unreadable: string | undefined;
      try {
        for await (const event of service.history(askId)) history.push(event);
      } catch (error) {
        // A damaged row: what was read is shown, with why the rest is not.
        unreadable = messageOf(error);
      }
      const main = html`<h1>Ask ${askId}</h1>
<p><a href="../asks${query}">All asks</a></p>
<p class="lead">State: <strong id="state">${ask.state}</strong>. Questions: ${ask.questions.map((question, index) => shownText(questionHeading(question, index))).join(', ')}.</p>
<div id="chart" class="chart-scroll" data-ask="${askId}" data-live-stream="events${query}">${rawSvg(renderStatechartSvg(chart, [ask.state]))}</div>
<h2>Stored history</h2>
<div class="table-scroll"><table><thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">From → to</th><th scope="col">Data</th></tr></thead>
<tbody id="history">${history.map((event) => historyRow(event))}</tbody></table></div>
${unreadable === undefined ? '' : html`<p class="problem" role="alert">The rest of the stored history could not be read: ${shownText(unreadable)}</p>`}`;
      return htmlResponse(
        200,
        renderPage({
          title: `Ask ${askId}`,
          main,
          script: 'operator-view.js',
          depth: 1,
          wide: true,
        }),
      );
    },
    close() {
      subscription.unsubscribe();
      clearInterval(heartbeat);
      streams.close();
    },
  };
}

function notAllowed(): Response {
  return htmlResponse(
    403,
    renderPage({
      title: 'Not allowed',
      main: html`<h1>Not allowed</h1><p class="lead">This view needs the operator token.</p>`,
      depth: 0,
    }),
  );
}

/** What a new row of the inbox shows of its ask (sent with its `start` event). */
interface ListRow {
  questions: string[];
  agent: string | undefined;
  created: string;
  deadline: string | undefined;
}

/**
 * What the live view needs of an audit event: its data as the store wrote it (redacted there
 * when the service redacts; this view has no redaction of its own), its time as shown, and who
 * answered (never redacted) as the inbox shows it.
 */
function eventSummary(event: AskAuditEvent, row: ListRow | undefined) {
  const by = (event.data as { answeredBy?: { recipient: string; channel?: string } }).answeredBy;
  return {
    askId: event.askId,
    type: event.type,
    at: event.at,
    time: shownTime(event.at),
    from: event.from,
    to: event.to,
    data: event.data,
    ...(by === undefined ? {} : { answeredBy: answeredByText(by) }),
    ...(row === undefined ? {} : { row }),
  };
}

/** A page for a query the inbox cannot show, saying why. */
function badQuery(problem: string): Response {
  return htmlResponse(
    400,
    renderPage({
      title: 'Bad query',
      main: html`<h1>Bad query</h1><p class="lead" role="alert">${problem}</p>`,
      depth: 0,
    }),
  );
}

const askMachineStates = ASK_STATES;

function historyRow(event: AskAuditEvent) {
  return html`<tr>${timeCell(event.at)}<td>${event.type}</td><td>${event.from ?? '–'} → ${event.to}</td><td class="history">${JSON.stringify(event.data)}</td></tr>`;
}

function rawSvg(svg: string): Html {
  // Built by renderStatechartSvg from the machine's own keys, each escaped there.
  return new Html(svg);
}
