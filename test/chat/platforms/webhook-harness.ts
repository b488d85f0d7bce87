/**
 * A Chat SDK instance with one real adapter and an action handler that records what reached it,
 * and a way to deliver a request to the adapter's webhook and wait for the work it scheduled
 * (`waitUntil`), so a test sees both the platform's answer and whether anything got through.
 */
import type { ActionEvent, Chat } from 'chat';
import { chatWith, deliver } from '../chat-fixture.js';

/** The Chat SDK side of a signature test. */
export interface WebhookHarness {
  chat: Chat;
  /** Every action event that reached `chat.onAction`. */
  actions: ActionEvent[];
  /** Delivers `request` to the adapter's webhook; resolves with its answer once its work is done. */
  deliver(request: Request): Promise<{ status: number; body: string }>;
}

/** A Chat SDK instance with `adapter` under its own name, initialized. */
export async function startWebhookHarness(adapter: {
  readonly name: string;
}): Promise<WebhookHarness> {
  const chat = chatWith({ [adapter.name]: adapter });
  const actions: ActionEvent[] = [];
  chat.onAction(async (event) => {
    actions.push(event);
  });
  await chat.initialize();
  return {
    chat,
    actions,
    deliver: async (request) => {
      const response = await deliver(chat, adapter.name, request);
      return { status: response.status, body: await response.text() };
    },
  };
}
