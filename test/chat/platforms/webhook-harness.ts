/**
 * A Chat SDK instance with one real adapter and an action handler that records what reached it,
 * and a way to deliver a request to the adapter's webhook and wait for the work it scheduled
 * (`waitUntil`), so a test sees both the platform's answer and whether anything got through.
 */
import { createMemoryState } from '@chat-adapter/state-memory';
import { type ActionEvent, type Adapter, Chat, ConsoleLogger, type StateAdapter } from 'chat';

/**
 * The Discord, Teams, Google Chat and memory-state packages are 4.41.0 and declare their types
 * against their own copy of `chat` 4.41.0; the project's `chat` is 4.41.1. The shapes agree at
 * run time, but TypeScript sees two declarations of the SDK's classes (and this project's
 * `exactOptionalPropertyTypes` reads `botUserId?: string` strictly), so they are passed as the
 * 4.41.1 types here, once.
 */
export function asChatAdapter(adapter: { readonly name: string }): Adapter {
  return adapter as unknown as Adapter;
}

/** The memory state adapter, typed as the project's `chat` declares a state adapter (see above). */
export function memoryState(): StateAdapter {
  return createMemoryState() as unknown as StateAdapter;
}

/** The Chat SDK side of a signature test. */
export interface WebhookHarness {
  chat: Chat;
  /** Every action event that reached `chat.onAction`. */
  actions: ActionEvent[];
  /** Delivers `request` to the adapter's webhook; resolves with its answer once its work is done. */
  deliver(request: Request): Promise<{ status: number; body: string }>;
}

/** A Chat SDK instance with `adapter` under its own name, initialized. */
export async function startWebhookHarness(platformAdapter: {
  readonly name: string;
}): Promise<WebhookHarness> {
  const adapter = asChatAdapter(platformAdapter);
  const chat = new Chat({
    userName: 'askbot',
    adapters: { [adapter.name]: adapter },
    state: memoryState(),
    logger: new ConsoleLogger('silent'),
  });
  const actions: ActionEvent[] = [];
  chat.onAction(async (event) => {
    actions.push(event);
  });
  await chat.initialize();
  const webhook = chat.webhooks[adapter.name];
  if (webhook === undefined) throw new Error(`no webhook for ${adapter.name}`);
  return {
    chat,
    actions,
    deliver: async (request) => {
      const scheduled: Promise<unknown>[] = [];
      const response = await webhook(request, { waitUntil: (task) => scheduled.push(task) });
      await Promise.all(scheduled);
      return { status: response.status, body: await response.text() };
    },
  };
}
