/**
 * `ask-engine/web`: answer asks from a browser. A Hono app for Node (it uses `node:crypto` and
 * `node:fs`; not for edge workers) with a signed link per ask and a form page that works without JavaScript (mount it in any server, or run it on a
 * port of its own), a provider that hands asks to their links, a signed inbox per recipient
 * of the open asks they were notified of, and a read-only view of live asks for operators.
 *
 * @module ask-engine/web
 */
export {
  type AnswerApp,
  type AnswerAppLinks,
  type AnswerAppOptions,
  createAnswerApp,
} from './answer-app.js';
export {
  createWebAnswerServer,
  type WebAnswerServer,
  type WebAnswerServerOptions,
} from './answer-server.js';
export type { PushAction } from './push-answer-route.js';
export { createWebProvider, type WebProviderOptions } from './web-provider.js';
export type { WebAnswerService } from './web-service.js';
