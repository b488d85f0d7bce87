/**
 * The read-only view of live asks at `/asks`, for an operator holding the operator token: the
 * ask machine's statechart with each ask's state highlighted, updated live from the service's
 * audit events (server-sent events), and each ask's stored history.
 */
import type { Observable, Subscription } from 'rxjs';
import { askMachine } from '../../machines/ask.machine.js';
import type { AskAuditEvent, AskState } from '../engine/audit.js';
import { describe, messageOf } from '../rules/describe.js';
import { Html, html, shownText } from './html.js';
import { htmlResponse } from './http-response.js';
import { secretsEqual } from './link-token.js';
import { createLiveStreams } from './live-stream.js';
import { renderPage } from './page-shell.js';
import { layoutStatechart, renderStatechartSvg } from './statechart-svg.js';
import type { WebAnswerService } from './web-service.js';

/** The operator pages; each checks the operator token (`?token=`) in constant time first. */
export interface OperatorView {
  /** `asks`: every ask seen, with the statechart. */
  list(url: URL): Response;
  /** `asks/events`: the audit events as server-sent events. */
  stream(url: URL, signal?: AbortSignal): Response;
  /** `asks/<askId>`: one ask's state and stored history. */
  ask(askId: string, url: URL): Promise<Response>;
  close(): void;
}

/** How many asks the list keeps (most recent activity first); the page says so. */
const MAX_LISTED_ASKS = 500;

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
  // Asks seen since the app was created, by last activity; the store has no listing query.
  const seen = new Map<string, { state: AskState; at: number }>();
  const streams = createLiveStreams(options.maxQueuedBytes);
  const subscription: Subscription = events$.subscribe((event) => {
    seen.delete(event.askId);
    seen.set(event.askId, { state: event.to, at: event.at });
    if (seen.size > MAX_LISTED_ASKS) seen.delete(seen.keys().next().value!);
    streams.send(`event: audit\ndata: ${JSON.stringify(eventSummary(event))}\n\n`);
  });
  // A comment line now and then keeps idle proxies from closing the stream.
  const heartbeat = setInterval(() => streams.send(': still here\n\n'), 25_000);
  heartbeat.unref?.();

  /** The token as given, or undefined when it is not the operator token. */
  const allowed = (url: URL): string | undefined => {
    const token = url.searchParams.get('token') ?? '';
    return secretsEqual(token, operatorToken) ? token : undefined;
  };

  return {
    list(url) {
      const token = allowed(url);
      if (token === undefined) return notAllowed();
      const query = `?token=${encodeURIComponent(token)}`;
      const asks = [...seen].reverse();
      const counts = new Map<string, number>();
      for (const [, ask] of asks) counts.set(ask.state, (counts.get(ask.state) ?? 0) + 1);
      const main = html`<h1>Live asks</h1>
<p class="lead">The ask lifecycle, drawn from machines/ask.machine.ts. Asks with activity since this server started (at most ${MAX_LISTED_ASKS}), most recent first; the page follows new events as they happen.</p>
<div id="chart">${rawSvg(renderStatechartSvg(chart, [...new Set(asks.map(([, ask]) => ask.state))]))}</div>
<table id="asks" data-live-stream="asks/events${query}" data-query="${query}"><thead><tr><th scope="col">Ask</th><th scope="col">State</th><th scope="col">Last event</th></tr></thead><tbody>
${asks.map(([askId, ask]) => html`<tr data-ask="${askId}"><td><a href="asks/${encodeURIComponent(askId)}${query}">${askId}</a></td><td class="ask-state">${ask.state}</td>${timeCell(ask.at)}</tr>`)}
</tbody></table>
<p id="counts">${[...counts].map(([state, count]) => `${state}: ${count}`).join(', ') || 'No asks yet.'}</p>`;
      return htmlResponse(
        200,
        renderPage({ title: 'Live asks', main, script: 'operator-view.js', depth: 0 }),
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
<p class="lead">State: <strong id="state">${ask.state}</strong>. Questions: ${ask.questions.map((question) => shownText(question.header)).join(', ')}.</p>
<div id="chart" data-ask="${askId}" data-live-stream="events${query}">${rawSvg(renderStatechartSvg(chart, [ask.state]))}</div>
<h2>Stored history</h2>
<table><thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">From → to</th><th scope="col">Data</th></tr></thead>
<tbody id="history">${history.map((event) => historyRow(event))}</tbody></table>
${unreadable === undefined ? '' : html`<p class="problem" role="alert">The rest of the stored history could not be read: ${shownText(unreadable)}</p>`}`;
      return htmlResponse(
        200,
        renderPage({ title: `Ask ${askId}`, main, script: 'operator-view.js', depth: 1 }),
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

/**
 * What the live view needs of an audit event: its data as the store wrote it (redacted there
 * when the service redacts; this view has no redaction of its own), and its time as shown.
 */
function eventSummary(event: AskAuditEvent) {
  return {
    askId: event.askId,
    type: event.type,
    at: event.at,
    time: shownTime(event.at),
    from: event.from,
    to: event.to,
    data: event.data,
  };
}

function historyRow(event: AskAuditEvent) {
  return html`<tr>${timeCell(event.at)}<td>${event.type}</td><td>${event.from ?? '–'} → ${event.to}</td><td class="history">${JSON.stringify(event.data)}</td></tr>`;
}

/**
 * An audit time as ISO 8601, or `undefined` for a stored time that is no date (a damaged row):
 * such a row is shown marked, and never stops a page from rendering.
 */
function isoTime(at: unknown): string | undefined {
  if (typeof at !== 'number') return undefined;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function shownTime(at: unknown): string {
  return isoTime(at) ?? `not a valid time (${describe(at)})`;
}

function timeCell(at: unknown): Html {
  return isoTime(at) === undefined
    ? html`<td class="bad-time">${shownTime(at)}</td>`
    : html`<td>${shownTime(at)}</td>`;
}

function rawSvg(svg: string): Html {
  // Built by renderStatechartSvg from the machine's own keys, each escaped there.
  return new Html(svg);
}
