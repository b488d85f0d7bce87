import { Subject } from 'rxjs';
import { chromium } from 'playwright-core';
import { createWebAnswerServer } from './src/web/index.ts';
const questions = [
  { id: 'q1', question: 'Which **database** should we use? <script>alert(1)</script>', header: 'Database', context: '# Plan\n- step 1 `code`\n- step 2 \u001b[31m red', options: [{ title: 'Postgres', description: 'Many hosts' }, { title: 'SQLite', description: '<b>one file</b>' }], allowMultiple: false, allowFreeform: true, allowComment: true },
  { id: 'q2', question: 'Which regions?', header: 'Regions', options: [{ title: 'eu' }, { title: 'us' }, { title: 'ap' }], allowMultiple: true, allowFreeform: false, allowComment: false },
  { id: 'q3', question: 'Anything else?', header: 'Notes', options: [], allowMultiple: false, allowFreeform: true, allowComment: false },
];
const events$ = new Subject<any>();
let answered: any;
const service = {
  async get(askId: string) { return { askId, state: answered ? 'answered' : 'pending', questions, createdAt: 0, updatedAt: 0, deadlineAt: Date.now() + 3600_000 } as any; },
  async answer(_id: string, a: any) { answered = a; },
  async *history() {},
  events$,
};
const server = await createWebAnswerServer({ service, secret: 'x'.repeat(32), operatorToken: 'o'.repeat(20) });
const link = await server.linkFor('ask-1');
console.log(link);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
for (const width of [1280, 360]) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  page.on('console', (m) => console.log('console', m.text()));
  page.on('pageerror', (e) => console.log('pageerror', e.message));
  await page.goto(link);
  await page.fill('#q3\\.text', 'hello');
  await page.screenshot({ path: `/tmp/web-${width}.png`, fullPage: true });
  console.log(await page.textContent('#live-status'));
}
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
events$.next({ askId: 'ask-1', type: 'start', at: Date.now(), from: null, to: 'pending', data: {} });
page.on("console", (m) => console.log("c2", m.text())); page.on("pageerror", (e) => console.log("pe2", e.message));
await page.goto(`${server.url}/asks?token=${'o'.repeat(20)}`);
page.on("console", (m) => console.log("c2", m.text())); page.on("pageerror", (e) => console.log("pe2", e.message)); await page.waitForSelector("text=Live: following");
events$.next({ askId: 'ask-2', type: 'start', at: Date.now(), from: null, to: 'pending', data: {} });
events$.next({ askId: 'ask-1', type: 'provider.deferred', at: Date.now(), from: 'pending', to: 'deferred', data: {} });
await page.waitForTimeout(300);
await page.screenshot({ path: `/tmp/asks.png`, fullPage: true });
await browser.close();
await server.close();
