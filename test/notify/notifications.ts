/** Notifications for the channel tests, built the way the notify provider will build them. */
import type { Notification } from 'ask-engine/notify';

export const AT = Date.parse('2026-12-01T18:00:00Z');
export const LINK = 'https://answers.example.com/a/ask_1?t=abc.def&r=alice';

export const question = {
  id: 'deploy',
  header: 'Deploy',
  question: 'Ship release 4.2 to production?',
  options: [
    { title: 'Ship it', description: 'Deploy now' },
    { title: 'Hold', description: 'Wait for QA' },
  ],
  allowMultiple: false,
  allowFreeform: true,
  allowComment: false,
};

export function created(overrides: Partial<Notification> = {}): Notification {
  return {
    kind: 'created',
    askId: 'ask_1',
    at: AT,
    questions: [structuredClone(question)],
    recipient: { id: 'alice', channel: 'email', address: 'alice@example.com' },
    link: LINK,
    deadline: AT + 3_600_000,
    ...overrides,
  } as Notification;
}
