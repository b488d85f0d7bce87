/// <reference lib="dom.iterable" />
/**
 * The live asks view's script (bundled for the browser): follows the server's audit event
 * stream and moves each ask's highlight in the statechart, the list's states and the history.
 */

interface LiveEvent {
  askId: string;
  type: string;
  at: number;
  /** `at` as pages and mails write a time (`formatTime`), or a note when it is not a date. */
  time: string;
  from: string | null;
  to: string;
  data: unknown;
  /** Who answered, as the inbox shows it (never redacted). */
  answeredBy?: string;
  /** With a `start` event: what a new row of the inbox shows. */
  row?: { questions: string[]; agent?: string; created: string; deadline?: string };
}

const source = document.querySelector<HTMLElement>('[data-live-stream]');
if (source !== null) follow(source);

function follow(source: HTMLElement): void {
  const stream = new EventSource(source.dataset.liveStream!);
  const status = document.createElement('p');
  status.className = 'live-status ready';
  status.setAttribute('role', 'status');
  source.before(status);
  stream.addEventListener('open', () => {
    status.textContent = 'Live: following new events.';
  });
  stream.addEventListener('error', () => {
    status.textContent = 'Connection lost; retrying.';
  });
  // The server ends the stream of a reader that fell too far behind: start again from the page.
  stream.addEventListener('lagged', () => {
    stream.close();
    window.location.reload();
  });
  stream.addEventListener('audit', (message) => {
    const event = JSON.parse((message as MessageEvent<string>).data) as LiveEvent;
    if (source.id === 'inbox') updateInbox(source, event);
    else if (source.dataset.ask === event.askId) updateAsk(event);
  });
}

/**
 * Moves the ask's row to the list that shows its new state, at the top: a list on its first page
 * takes new asks and asks that moved into its states; a row whose state no list shows leaves.
 */
function updateInbox(inbox: HTMLElement, event: LiveEvent): void {
  const tables = [...inbox.querySelectorAll<HTMLTableElement>('table.asks')];
  let row = inbox.querySelector<HTMLTableRowElement>(`tr[data-ask="${CSS.escape(event.askId)}"]`);
  const target = tables.find((table) => {
    const states = (table.dataset.states ?? '').split(' ');
    return states.includes(event.to) && (table.dataset.first === 'true' || table.contains(row));
  });
  if (row === null && target !== undefined) row = newRow(event, inbox.dataset.query ?? '');
  if (row === null) return;
  if (target === undefined) {
    row.remove();
  } else {
    row.cells[1]!.textContent = event.to;
    row.cells[5]!.textContent = event.time;
    if (event.answeredBy !== undefined) row.cells[7]!.textContent = event.answeredBy;
    target.tBodies[0]!.prepend(row);
    target.closest('section')?.querySelector('.empty')?.remove();
  }
  highlight(
    new Set(
      [...inbox.querySelectorAll<HTMLElement>('.ask-state')].map((node) => node.textContent ?? ''),
    ),
  );
}

function newRow(event: LiveEvent, query: string): HTMLTableRowElement {
  const row = document.createElement('tr');
  row.dataset.ask = event.askId;
  const link = document.createElement('a');
  link.href = `asks/${encodeURIComponent(event.askId)}${query}`;
  link.textContent = event.askId;
  const shown = event.row;
  row.append(
    cell(link),
    cell(event.to),
    cell(shown === undefined ? '–' : shown.questions.join(', ')),
    cell(shown?.agent ?? '–'),
    cell(shown?.created ?? event.time),
    cell(event.time),
    cell(shown?.deadline ?? '–'),
    cell('–'),
  );
  row.cells[1]!.className = 'ask-state';
  row.cells[2]!.className = 'questions';
  row.cells[5]!.className = 'updated';
  row.cells[7]!.className = 'answered-by';
  return row;
}

function updateAsk(event: LiveEvent): void {
  const state = document.getElementById('state');
  if (state !== null) state.textContent = event.to;
  highlight(new Set([event.to]));
  const history = document.getElementById('history');
  if (history !== null) {
    const row = document.createElement('tr');
    row.append(
      cell(event.time),
      cell(event.type),
      cell(`${event.from ?? '–'} → ${event.to}`),
      cell(JSON.stringify(event.data)),
    );
    row.cells[3]!.className = 'history';
    history.append(row);
  }
}

function highlight(states: Set<string>): void {
  for (const node of document.querySelectorAll<SVGGElement>('.statechart .state')) {
    node.classList.toggle('current', states.has(node.dataset.state ?? ''));
  }
}

function cell(content: string | Node): HTMLTableCellElement {
  const td = document.createElement('td');
  td.append(content);
  return td;
}
