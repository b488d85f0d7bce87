/**
 * (q) A 2-of-3 quorum ask against a single-person ask, on the memory store with the service's
 * default options: start, then `respond` by two people who agree (the second decides), against
 * start then one `answer`. Both asks stay pending at their provider (which never answers), so
 * the difference is the quorum itself: the rule kept with the ask, two counted responses
 * instead of one answer, their audit events and the receipt. Goal <= 3x.
 */
import type { AskProvider } from '../src/index.js';
import { createInteractionService } from '../src/index.js';
import { yesAnswer, yesNoRequest } from './fixtures.js';
import { timeRatio } from './ratio.js';

// Keeps every ask pending: the people answer through the service, as on the web page.
const waiting: AskProvider = { ask: () => new Promise(() => undefined) };
const service = createInteractionService();
service.registerProvider(waiting);
const quorum = { required: 2, from: ['ana', 'ben', 'cy'] };
const ana = { by: { recipient: 'ana', channel: 'web' } };
const ben = { by: { recipient: 'ben', channel: 'web' } };

let decided = 0;
await timeRatio(
  '(q) 2-of-3 quorum ask (start, two agreeing responses) vs one person (start, answer)',
  3,
  async () => {
    const handle = service.start(yesNoRequest);
    await service.answer(handle.id, yesAnswer, ana);
  },
  async () => {
    const handle = service.start(yesNoRequest, { quorum });
    await service.respond(handle.id, yesAnswer, ana);
    const receipt = await service.respond(handle.id, yesAnswer, ben);
    if (receipt.outcome?.status === 'answered') decided++;
  },
);
if (decided === 0) throw new Error('no quorum ask was decided');
await service.close();
