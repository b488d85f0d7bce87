/** Reading a notification, and the delivery id every channel sends it under. */
import { deliveryIdFor, readNotification } from 'ask-engine/notify';
import { describe, expect, it } from 'vitest';
import { AT, created } from './notifications.js';

describe('readNotification', () => {
  it('returns a valid notification as it is', () => {
    const notification = created();
    expect(readNotification(notification)).toBe(notification);
  });

  it('names the field that is wrong and what it got', () => {
    const noAddress = { ...created(), recipient: { id: 'alice', channel: 'email' } };
    expect(() => readNotification(noAddress)).toThrow(
      'Invalid created notification at `recipient.address`: Expected required property, got undefined.',
    );
    const badOption = created();
    (badOption.questions[0] as { options: unknown[] }).options = [{ title: 7 }];
    expect(() => readNotification(badOption)).toThrow(
      /at `questions\[0\]\.options\[0\]\.title`: Expected string, got 7\./,
    );
    expect(() => readNotification({ ...created(), link: 'javascript:alert(1)' })).toThrow(
      /at `link`: .*got "javascript:alert\(1\)"/,
    );
    expect(() => readNotification({ ...created(), kind: 'sent' })).toThrow(
      'Expected notification `kind` to be one of created, reminded, escalated, settled, got "sent".',
    );
    expect(() => readNotification('created')).toThrow(
      'Expected a notification object, got "created".',
    );
  });

  it('requires the step of a reminder or an escalation, and refuses one elsewhere', () => {
    expect(() => readNotification({ ...created(), kind: 'reminded' })).toThrow(
      /Invalid reminded notification at `seq`: Expected required property/,
    );
    expect(() => readNotification({ ...created(), seq: 1 })).toThrow(
      /Invalid created notification at `seq`: Unexpected property/,
    );
    expect(readNotification({ ...created(), kind: 'escalated', seq: 2 })).toMatchObject({ seq: 2 });
  });

  it('requires an outcome on a settled notification, and it never holds the answers', () => {
    expect(() => readNotification({ ...created(), kind: 'settled' })).toThrow(
      /Invalid settled notification at `outcome`: Expected required property/,
    );
    expect(() =>
      readNotification({
        ...created(),
        kind: 'settled',
        outcome: { status: 'answered', at: AT, answers: { deploy: 'Ship it' } },
      }),
    ).toThrow(/at `outcome\.answers`: Unexpected property/);
    expect(() =>
      readNotification({ ...created(), kind: 'settled', outcome: { status: 'deferred', at: AT } }),
    ).toThrow(
      /at `outcome\.status`: expected one of answered, cancelled, timedOut, aborted, got "deferred"/,
    );
    expect(() =>
      readNotification({
        ...created(),
        kind: 'settled',
        outcome: { status: 'cancelled', at: AT, reason: 'bored' },
      }),
    ).toThrow(/at `outcome\.reason`/);
  });
});

describe('deliveryIdFor', () => {
  it('gives the same id for the same ask, recipient, kind and step, and another for any change', () => {
    const id = deliveryIdFor('ask_1', 'alice', 'reminded', 1);
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(deliveryIdFor('ask_1', 'alice', 'reminded', 1)).toBe(id);
    const others = [
      deliveryIdFor('ask_1', 'alice', 'reminded', 2),
      deliveryIdFor('ask_1', 'alice', 'escalated', 1),
      deliveryIdFor('ask_1', 'bob', 'reminded', 1),
      deliveryIdFor('ask_2', 'alice', 'reminded', 1),
      // Parts cannot run into each other.
      deliveryIdFor('ask_1a', 'lice', 'reminded', 1),
    ];
    expect(new Set([id, ...others]).size).toBe(6);
  });

  it('refuses a step that is not a whole number from 1', () => {
    expect(() => deliveryIdFor('ask_1', 'alice', 'reminded', 0)).toThrow(/`seq`/);
    expect(() => deliveryIdFor('ask_1', 'alice', 'reminded', 1.5)).toThrow(/`seq`/);
  });
});
