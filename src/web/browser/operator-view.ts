/// <reference lib="dom.iterable" />
/**
 * The live asks view's script (bundled for the browser): follows the server's audit event
 * stream and moves each ask's highlight in the statechart, the list's states and the history.
 */

interface LiveEvent {
  askId: string;
  type: string;
  at: number;
  /** `at` as ISO 8601, or a note when the stored time is not a date. */
  time: string;
  from: string | null;
  to: string;
  data: unknown;
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
    if (source.id === 'asks') updateList(source, event);
    else if (source.dataset.ask === event.askId) updateAsk(event);
  });
}

function updateList(table: HTMLElement, event: LiveEvent): void {
  const body = table.querySelector('tbody')!;
  let row = [...body.querySelectorAll<HTMLTableRowElement>('tr')].find(
    (candidate) => candidate.dataset.ask === event.askId,
  );
  if (row === undefined) {
    row = document.createElement('tr');
    row.dataset.ask = event.askId;
    const link = document.createElement('a');
    link.href = `asks/${encodeURIComponent(event.askId)}${table.dataset.query ?? ''}`;
    link.textContent = event.askId;
    row.append(cell(link), cell(''), cell(''));
    row.cells[1]!.className = 'ask-state';
  }
  row.cells[1]!.textContent = event.to;
  row.cells[2]!.textContent = event.time;
  body.prepend(row);
  const states = new Set(
    [...body.querySelectorAll<HTMLElement>('.ask-state')].map((node) => node.textContent ?? ''),
  );
  highlight(states);
  const counts = new Map<string, number>();
  for (const node of body.querySelectorAll<HTMLElement>('.ask-state')) {
    counts.set(node.textContent ?? '', (counts.get(node.textContent ?? '') ?? 0) + 1);
  }
  const summary = document.getElementById('counts');
  if (summary !== null) {
    summary.textContent = [...counts].map(([state, count]) => `${state}: ${count}`).join(', ');
  }
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
