/**
 * `ask-engine/web`: answer asks from a browser. A server with a signed link per ask and a form
 * page that works without JavaScript, a provider that hands asks to their links, and a
 * read-only view of live asks for operators.
 */
export {
  createWebAnswerServer,
  type WebAnswerServer,
  type WebAnswerServerOptions,
} from './answer-server.js';
export { createWebProvider, type WebProviderOptions } from './web-provider.js';
export type { WebAnswerService } from './web-service.js';
