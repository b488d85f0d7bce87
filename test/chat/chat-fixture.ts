/** A Chat SDK instance over real adapters and the memory state, typed for this project. */
import { createMemoryState } from '@chat-adapter/state-memory';
import { type Adapter, Chat, type StateAdapter } from 'chat';

/**
 * `new Chat` with `adapters`, the memory state and a silent logger. The adapter packages pin
 * `chat` 4.41.0 for their own types while the project has 4.41.1, and this project compiles
 * with `exactOptionalPropertyTypes`, which their declarations were not written for: the two
 * copies' types differ only there, so they are bridged here once, for the tests.
 */
export function chatWith(adapters: Record<string, unknown>): Chat {
  return new Chat({
    userName: 'approvals',
    adapters: adapters as Record<string, Adapter>,
    state: createMemoryState() as unknown as StateAdapter,
    logger: 'silent',
  });
}

/** A logger that says nothing, for the adapters. */
export const silentLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};

/** Hands `request` to `chat`'s `name` webhook and waits for what it ran after acknowledging. */
export async function deliver(chat: Chat, name: string, request: Request): Promise<Response> {
  const handler = chat.webhooks[name];
  if (handler === undefined) throw new Error(`No ${name} webhook on this Chat instance.`);
  const tasks: Promise<unknown>[] = [];
  const response = await handler(request, { waitUntil: (task) => tasks.push(task) });
  await Promise.all(tasks);
  return response;
}
