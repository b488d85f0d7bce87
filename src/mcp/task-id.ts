/**
 * MCP task ids: random, unguessable, and never stored. The ask of a task is found through its
 * idempotency key, which holds only the id's SHA-256, so no row, list or export shows a task id
 * and every process sharing the store finds the same ask without a lookup table.
 */
import { createHash, randomBytes } from 'node:crypto';
import { askIdForKey } from '../engine/ask-ids.js';

const TASK_ID_BYTES = 32;
// 32 bytes in unpadded base64url: 43 characters, the last one carrying 4 bits and 2 unused zeros.
const TASK_ID_SHAPE = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
const KEY_PREFIX = 'mcp-task:';

/** Where a task's ask is: the key it was started with and the id that key gives. */
export interface TaskAskRef {
  /** The ask's idempotency key: a prefix and the task id's SHA-256. */
  readonly key: string;
  /** The ask id the key derives (`askIdForKey`): the same in every process. */
  readonly askId: string;
}

/** A new task id: 256 random bits in base64url. */
export function mintTaskId(): string {
  return randomBytes(TASK_ID_BYTES).toString('base64url');
}

/**
 * The ask a task id names, or `undefined` when `taskId` is not spelled as `mintTaskId` spells
 * one (then it names nothing). Knowing an ask's id (shown on pages and in lists) gives no task
 * id that reaches it: the id is a hash of the key, and the key the SHA-256 of the task id, so
 * finding one means trying about 2^106 task ids.
 */
export function taskAskRef(taskId: string): TaskAskRef | undefined {
  if (!TASK_ID_SHAPE.test(taskId)) return undefined;
  const key = `${KEY_PREFIX}${createHash('sha256').update(taskId, 'utf8').digest('base64url')}`;
  return { key, askId: askIdForKey(key) };
}
