/** The part of the interaction service the web server uses: read an ask, answer or decline it, watch events. */
import type { InteractionService } from '../engine/service-contract.js';

export type WebAnswerService = Pick<
  InteractionService,
  'get' | 'answer' | 'cancel' | 'history' | 'events$'
>;
