/**
 * With `redact: true`, nothing a person typed or picked appears anywhere but the outcome's
 * answers: not in audit events, the stored history, the inspector, refusal messages or the
 * stored snapshot of a deferred ask.
 */
import { describe, expect, it } from 'vitest';
import {
  type AskAuditEvent,
  createInteractionService,
  createMemoryAskStore,
  type InspectionEvent,
} from '../../src/index.js';
import { manualProvider, tick } from './helpers.js';

const secret = 'my-ssn-078-05-1120';
const question = { question: 'Which account?', options: ['Checking', 'Savings'] };
const picked = (title: string) => [
  { questionId: 'q1', response: { kind: 'selection' as const, selections: [title] } },
];

function redactingService() {
  const store = createMemoryAskStore();
  const inspected: string[] = [];
  const audit: AskAuditEvent[] = [];
  const service = createInteractionService({
    store,
    redact: true,
    inspect: (event: InspectionEvent) =>
      inspected.push(
        JSON.stringify({ ...event, actorRef: undefined, sourceRef: undefined }, (key, value) =>
          key === 'machine' ? undefined : value,
        ),
      ),
  });
  service.events$.subscribe((event) => audit.push(event));
  const provider = manualProvider();
  service.registerProvider(provider);
  const everything = async (askId: string, outcome: unknown) => {
    const history: AskAuditEvent[] = [];
    for await (const event of service.history(askId)) history.push(event);
    return JSON.stringify([audit, history, inspected, outcome, await store.get(askId)]);
  };
  return { service, provider, store, everything };
}

describe('a redacting service', () => {
  it('never repeats a refused selection, in the outcome message, the audit, the store or the inspector', async () => {
    const { service, provider, everything } = redactingService();
    const handle = service.start(question);
    await tick();
    provider.calls[0]!.resolve({ status: 'answered', answers: picked(secret) });
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ status: 'cancelled', reason: 'invalid-answer' });
    expect((outcome as { message: string }).message).toMatch(/q1/);
    expect(await everything(handle.id, outcome)).not.toContain(secret);
  });

  it('never repeats what answer() refused, in the error or the audit', async () => {
    const { service, everything } = redactingService();
    const handle = service.start(question);
    await tick();
    const refusal = await service.answer(handle.id, picked(secret)).catch((error) => error);
    expect(refusal).toMatchObject({ code: 'INVALID_ANSWER' });
    expect(String(refusal.message)).not.toContain(secret);
    expect(await everything(handle.id, undefined)).not.toContain(secret);
    handle.cancel();
  });

  it('keeps typed progress out of the stored snapshot once the ask is deferred', async () => {
    const { service, provider, store, everything } = redactingService();
    const handle = service.start({ question: 'Your SSN?' });
    await tick();
    provider.calls[0]!.ctx.reportProgress([
      { questionId: 'q1', response: { kind: 'freeform', text: secret } },
    ]);
    await tick();
    provider.calls[0]!.resolve({ status: 'deferred', interactionId: 'chat-1' });
    await handle.outcome;
    expect(JSON.stringify(await store.get(handle.id))).not.toContain(secret);
    expect(await everything(handle.id, undefined)).not.toContain(secret);
  });

  it('still hands the caller the answers the person gave', async () => {
    const { service, provider, everything } = redactingService();
    const handle = service.start({ question: 'Your SSN?' });
    await tick();
    const answers = [{ questionId: 'q1', response: { kind: 'freeform' as const, text: secret } }];
    provider.calls[0]!.resolve({ status: 'answered', answers });
    expect(await handle.outcome).toEqual({ status: 'answered', answers });
    // The store keeps the outcome (it hands it to other services); the trail does not.
    expect(JSON.stringify((await service.get(handle.id))?.outcome)).toContain(secret);
    const history: AskAuditEvent[] = [];
    for await (const event of service.history(handle.id)) history.push(event);
    expect(JSON.stringify(history)).not.toContain(secret);
    void everything;
  });
});

describe('a service without redact that takes over a redacting ask', () => {
  it('shows its inspector no more than its audit: the ask’s own flag decides', async () => {
    const store = createMemoryAskStore();
    const first = createInteractionService({ store, redact: true });
    const asked = manualProvider();
    first.registerProvider(asked);
    const handle = first.start({ question: 'Your SSN?' });
    await handle.stored;
    await tick();
    asked.calls[0]!.ctx.reportProgress([
      { questionId: 'q1', response: { kind: 'freeform', text: secret } },
    ]);
    await tick();
    const snapshot = first.getPersistedSnapshot(handle.id)!;
    await first.close();

    const inspected: string[] = [];
    const audit: AskAuditEvent[] = [];
    const second = createInteractionService({
      store,
      inspect: (event: InspectionEvent) =>
        inspected.push(
          JSON.stringify({ ...event, actorRef: undefined, sourceRef: undefined }, (key, value) =>
            key === 'machine' ? undefined : value,
          ),
        ),
    });
    second.events$.subscribe((event) => audit.push(event));
    const taken = manualProvider();
    second.registerProvider(taken);
    await second.restore(snapshot);
    await tick();
    taken.calls[0]!.ctx.reportProgress([
      { questionId: 'q1', response: { kind: 'freeform', text: `${secret}-again` } },
    ]);
    await tick();
    expect(inspected.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit)).not.toContain(secret);
    expect(JSON.stringify(inspected)).not.toContain(secret);
    await second.close();
  });
});
