/** The service's `inspect` option with @statelyai/inspect, the inspector of the Stately tools. */
import { createInspector, type StatelyInspectionEvent } from '@statelyai/inspect';
import { describe, expect, it } from 'vitest';
import { createInteractionService, createScriptedProvider } from '../../src/index.js';

function recordingInspector() {
  // Serialized on arrival: keeping the raw events would keep every snapshot alive.
  const sent: string[] = [];
  const inspector = createInspector({ send: (event) => sent.push(JSON.stringify(event)) });
  return {
    inspector,
    events: () => sent.map((text) => JSON.parse(text) as StatelyInspectionEvent),
    text: () => sent.join('\n'),
  };
}

const secret = 'the-launch-code-is-0000';

async function askOnce(redact: boolean) {
  const recorder = recordingInspector();
  const service = createInteractionService({ inspect: recorder.inspector.inspect, redact });
  service.registerProvider(
    createScriptedProvider([
      { answer: [{ questionId: 'q1', response: { kind: 'freeform', text: secret } }] },
    ]),
  );
  const handle = service.start({ question: 'Launch code?' });
  await handle.outcome;
  // The inspector converts events when the event loop is idle.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { recorder, handle };
}

describe('@statelyai/inspect', () => {
  it('sees each ask as an actor named by its ask id, from pending to its outcome', async () => {
    const { recorder, handle } = await askOnce(false);
    const events = recorder.events();
    const actor = events.find((event) => event.type === '@xstate.actor');
    expect(actor).toMatchObject({ sessionId: expect.any(String) });
    expect(recorder.text()).toContain(handle.id);
    const values = events
      .filter((event) => event.type === '@xstate.snapshot')
      .map((event) => (event as { snapshot: { value?: unknown } }).snapshot.value);
    expect(values).toContain('answered');
    expect(recorder.text()).toContain(secret);
  });

  it('never receives what the person typed when the service redacts', async () => {
    const { recorder } = await askOnce(true);
    expect(recorder.events().length).toBeGreaterThan(2);
    expect(recorder.text()).not.toContain(secret);
    expect(recorder.text()).toContain('[redacted]');
  });
});
