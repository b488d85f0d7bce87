/** An ask as `service.get` and `service.list` hand it out: the checked stored row, without its snapshot. */
import { QUERY_VALUES } from '../stores/ask-query.js';
import type { StoredAsk } from '../stores/ask-store.js';
import type { AskInfo } from './service-contract.js';
import { checkStoredAsk } from './stored-ask-check.js';

/**
 * The row checked (a corrupt one is refused, naming the ask), its session and agent read from
 * the snapshot, frozen. What is redacted is as the row stores it.
 */
export function askInfo(row: StoredAsk): AskInfo {
  const checked = checkStoredAsk(row, 'the stored ask');
  const { snapshot: _snapshot, ...info } = checked as AskInfo & Pick<StoredAsk, 'snapshot'>;
  const sessionId = QUERY_VALUES.sessionId(checked);
  const agent = QUERY_VALUES.agent(checked);
  if (sessionId !== undefined) info.sessionId = sessionId;
  if (agent !== undefined) info.agent = agent;
  return Object.freeze(info);
}
