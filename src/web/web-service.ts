/** The part of the interaction service the web server uses: read an ask, answer, respond to or decline it, watch events. */
import type { InteractionService } from '../engine/service-contract.js';

/**
 * What the answer pages need of an interaction service: read an ask and its history, answer or
 * cancel it, and follow its events. Any `InteractionService` fits.
 */
export type WebAnswerService = Pick<
  InteractionService,
  'get' | 'list' | 'answer' | 'respond' | 'cancel' | 'history' | 'events$'
>;
