/** An ask as `service.get` and `service.list` hand it out: the checked row, without its snapshot. */

import { quorumProgress } from '../rules/quorum.js';
import { listedAsk } from '../stores/ask-query.js';
import type { ListedAsk, StoredAsk } from '../stores/ask-store.js';
import { basisOf } from './ask-write.js';
import { deepFreeze } from './outcome-copy.js';
import type { AskInfo } from './service-contract.js';
import { checkListedAsk, checkStoredAsk } from './stored-ask-check.js';

/**
 * A stored row checked (a corrupt one is refused, naming the ask), its session and agent read
 * from the snapshot, frozen. What is redacted is as the row stores it.
 */
export function askInfo(row: StoredAsk): AskInfo {
  const checked = checkStoredAsk(row, 'the stored ask');
  const info: AskInfo = listedAsk(checked);
  const { quorum, responses } = basisOf(checked).snapshot.context;
  if (quorum !== undefined) info.quorum = deepFreeze(quorumProgress(quorum, responses));
  return Object.freeze(info);
}

/** A row `store.list` returned, checked and frozen: the same shape as `askInfo`. */
export function listedInfo(row: ListedAsk): AskInfo {
  return checkListedAsk(row, 'the listed ask');
}
