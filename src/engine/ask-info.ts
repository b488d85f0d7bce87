/** An ask as `service.get` and `service.list` hand it out: the checked row, without its snapshot. */

import type { AskAttachment } from '../contracts/attachment.js';
import { utf8ByteLength } from '../rules/limits.js';
import { quorumProgress } from '../rules/quorum.js';
import { listedAsk } from '../stores/ask-query.js';
import type { ListedAsk, StoredAsk } from '../stores/ask-store.js';
import { basisOf, redacts } from './ask-write.js';
import { deepFreeze } from './outcome-copy.js';
import { redactAnswers } from './redact.js';
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
  if (checked.attachment !== undefined) info.attachment = checked.attachment;
  return Object.freeze(info);
}

/** A row `store.list` returned, checked and frozen: the same shape as `askInfo`. */
export function listedInfo(row: ListedAsk): AskInfo {
  return checkListedAsk(row, 'the listed ask');
}

/**
 * What a reader of the store is shown of an ask (the CLI's `show`, `list --json`, `export`, and
 * the outcomes `answer` and `resume` print): `value` (the ask as `service.get` or `service.list`
 * gave it, or its outcome) with every answer `'[redacted]'` unless `row`, the ask's stored row,
 * says it does not redact. The flag is the one its audit events were written by (`redacts`), so
 * what is shown tells no more than its history. Without the row (purged since it was listed)
 * nothing says the ask may be shown: its answers are redacted. An attachment is shown as its
 * kind, version and size, never its data: that is its caller's (an agent run's saved state,
 * with the conversation in it), for the caller to read through `service.get`.
 */
export function shownOfAsk<T>(value: T, row: StoredAsk | undefined): T {
  const stored = row === undefined ? undefined : checkStoredAsk(row, 'the stored ask');
  const shown = withoutAttachmentData(value);
  if (stored !== undefined && !redacts(basisOf(stored).snapshot)) return shown;
  return deepFreeze(redactAnswers(shown));
}

/** `value` with its attachment, if it has one, as `{ kind, version, bytes }`. */
function withoutAttachmentData<T>(value: T): T {
  const attachment = (value as { attachment?: AskAttachment } | null)?.attachment;
  if (attachment === undefined) return value;
  const { kind, version, data } = attachment;
  return deepFreeze({ ...value, attachment: { kind, version, bytes: utf8ByteLength(data) } });
}
