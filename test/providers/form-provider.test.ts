import { describe, expect, it } from 'vitest';
import {
  type AskUserQuestionAnswer,
  createAskUserTool,
  createFormProvider,
  createInteractionService,
  encodeAskUserFormAnswer,
  type FormHost,
  FormHostDrainedError,
  type FormRequestContext,
  readAskUserForm,
  type UiForm,
  type UiFormAnswer,
} from '../../src/index.js';

/** A form client, as a browser would run it: it renders from the hint and encodes the answers. */
function clientAnswering(answers: AskUserQuestionAnswer[] | null): FormHost {
  return async (form) => {
    expect(readAskUserForm(form)).not.toBeNull();
    const wire = JSON.parse(JSON.stringify(form)) as UiForm;
    return JSON.parse(JSON.stringify(encodeAskUserFormAnswer(wire, answers)));
  };
}

function serviceWith(host: FormHost) {
  const service = createInteractionService();
  service.registerProvider(createFormProvider(host));
  return service;
}

const pick = { question: 'Which database?', options: ['Postgres', 'SQLite'] };

describe('the ask_user tool through the form provider', () => {
  it('answers a wizard end to end: tool input, one form, client encoding, decoded answers', async () => {
    const forms: UiForm[] = [];
    const host: FormHost = async (form, ctx) => {
      forms.push(form);
      return clientAnswering([
        {
          questionId: 'q1',
          response: { kind: 'selection', selections: ['postgres'], comment: 'we know it' },
        },
        { questionId: 'q2', response: { kind: 'freeform', text: 'Friday' } },
      ])(form, ctx);
    };
    const tool = createAskUserTool(serviceWith(host));
    const result = await tool.execute('call-1', {
      questions: [
        {
          question: 'Which database?',
          options: [{ title: 'Postgres' }, { title: 'SQLite' }],
          allowComment: true,
        },
        { question: 'When do we ship?' },
        { question: 'Who reviews?', options: [{ title: 'Ana' }, { title: 'Bo' }] },
      ],
    });

    expect(forms).toHaveLength(1);
    expect(forms[0]!.fields.map((field) => field.id)).toContain('q3.mode');
    expect(result.isError).not.toBe(true);
    expect(result.details).toMatchObject({
      status: 'answered',
      answers: [
        {
          questionId: 'q1',
          response: { kind: 'selection', selections: ['Postgres'], comment: 'we know it' },
        },
        { questionId: 'q2', response: { kind: 'freeform', text: 'Friday' } },
        { questionId: 'q3', response: null },
      ],
    });
    const text = result.content[0]!.text;
    expect(text).toContain('Postgres');
    expect(text).toContain('Friday');
  });

  it('reports a hostile client’s answer as a failed ask, never as an answer', async () => {
    const host: FormHost = async () => ({
      action: 'submit',
      values: { 'q1.selection': 'option3' },
    });
    const outcome = await serviceWith(host).ask(pick);
    expect(outcome.status).toBe('cancelled');
    expect(outcome).toMatchObject({ message: expect.stringContaining('q1.selection') });
  });

  it('names the field a client got wrong without quoting what it sent', async () => {
    const secret = 'my-ssn-078-05-1120';
    const host: FormHost = async () => ({ action: 'submit', values: { 'q1.selection': secret } });
    const outcome = await serviceWith(host).ask(pick);
    expect(outcome).toMatchObject({
      status: 'cancelled',
      message: expect.stringContaining(
        'Question "q1", field "q1.selection": has a string of 18 characters, which is not one of its options',
      ),
    });
    expect(JSON.stringify(outcome)).not.toContain(secret);
  });
});

describe('createFormProvider', () => {
  it('records who the host says submitted the form, and the tool details show it', async () => {
    const answers = [
      { questionId: 'q1', response: { kind: 'selection' as const, selections: ['SQLite'] } },
    ];
    const host: FormHost = async (form, ctx) => {
      const answer = (await clientAnswering(answers)(form, ctx)) as UiFormAnswer;
      return { ...answer, answeredBy: { recipient: 'U024BE7LH', channel: 'slack' } };
    };
    const result = await createAskUserTool(serviceWith(host)).execute('call-1', pick);
    expect(result.details).toMatchObject({
      status: 'answered',
      answers,
      // As the host gave it: a Slack mention needs U024BE7LH, not u024be7lh.
      answeredBy: { recipient: 'U024BE7LH', channel: 'slack' },
    });
  });

  it('turns the cancel action into cancelled by the user', async () => {
    expect(await serviceWith(clientAnswering(null)).ask(pick)).toEqual({
      status: 'cancelled',
      reason: 'user',
    });
  });

  it('maps a host without form support to cancelled / unavailable', async () => {
    const service = serviceWith(async () => ({
      status: 'unsupported',
      message: 'This client shows no forms.',
    }));
    expect(await service.ask(pick)).toEqual({
      status: 'cancelled',
      reason: 'unavailable',
      message: 'This client shows no forms.',
    });
  });

  it('keeps the deferred interaction id, and the ask resumes with the person’s answer', async () => {
    const service = serviceWith(async () => ({
      status: 'deferred',
      interactionId: 'chat-42',
      message: 'Sent to chat.',
    }));
    expect(await service.ask(pick)).toEqual({
      status: 'deferred',
      interactionId: 'chat-42',
      message: 'Sent to chat.',
    });
    const answers = [
      { questionId: 'q1', response: { kind: 'selection' as const, selections: ['SQLite'] } },
    ];
    expect(await service.resume('chat-42', answers)).toEqual({ status: 'answered', answers });
  });

  it('ends the ask aborted with the original cause when the host drains or restarts', async () => {
    const cause = new Error('host restarting for an upgrade');
    const outcome = await serviceWith(async () => ({ status: 'drained', cause })).ask(pick);
    expect(outcome).toEqual({
      status: 'aborted',
      cause,
      message: 'host restarting for an upgrade',
    });
    expect(new FormHostDrainedError(cause)).toMatchObject({
      name: 'AbortError',
      cause,
      message: cause.message,
    });
  });

  it('forwards the abort signal and the deadline, and releases a host that ignores the signal', async () => {
    let seen: FormRequestContext | undefined;
    // A host that never settles and never looks at its signal.
    const service = serviceWith((_form, ctx) => {
      seen = ctx;
      return new Promise(() => {});
    });
    const controller = new AbortController();
    const cause = new Error('the agent moved on');
    const outcome = service.ask(pick, {
      signal: controller.signal,
      timeoutMs: 60_000,
      toolCallId: 'call-7',
    });
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toMatchObject({ toolCallId: 'call-7', deadlineAt: expect.any(Number) });
    expect(seen!.signal.aborted).toBe(false);
    controller.abort(cause);
    expect(await outcome).toEqual({ status: 'aborted', cause, message: 'the agent moved on' });
    expect(seen!.signal.aborted).toBe(true);
    expect(seen!.signal.reason).toBe(cause);
  });

  it('rejects with the signal’s reason and shows no form when the ask already ended', async () => {
    let called = false;
    const provider = createFormProvider(async () => {
      called = true;
      return { status: 'unsupported' };
    });
    const reason = new Error('gone');
    const ctx = { askId: 'a1', signal: AbortSignal.abort(reason), reportProgress() {} };
    await expect(provider.ask({ questions: [] }, ctx)).rejects.toBe(reason);
    expect(called).toBe(false);
  });

  it('rejects with the signal’s reason when the host aborts it, and ignores the host’s late failure', async () => {
    const controller = new AbortController();
    const reason = new Error('the host went away');
    const provider = createFormProvider(() => {
      // The signal aborts while the host is called: its own promise fails only later.
      controller.abort(reason);
      return new Promise((_, reject) =>
        setTimeout(() => reject(new Error('late host failure')), 5),
      );
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (error: unknown) => unhandled.push(error);
    process.on('unhandledRejection', onUnhandled);
    try {
      const ctx = { askId: 'a1', signal: controller.signal, reportProgress() {} };
      const question = {
        id: 'q1',
        question: 'Deploy now?',
        header: 'Q1',
        options: [{ title: 'Yes' }, { title: 'No' }],
        allowMultiple: false,
        allowFreeform: false,
        allowComment: false,
      };
      await expect(provider.ask({ questions: [question] }, ctx)).rejects.toBe(reason);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('refuses questions over the form limits before the host sees a form', async () => {
    let called = false;
    const provider = createFormProvider(async () => {
      called = true;
      return { status: 'unsupported' };
    });
    // The service refuses such a request up front; the provider holds the line on its own too.
    const service = createInteractionService();
    service.registerProvider(provider);
    await expect(
      service.ask({ question: 'Read this plan', context: 'x'.repeat(140_000) }),
    ).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
    });
    const huge = {
      id: 'q1',
      question: 'Read this plan',
      header: 'Q1',
      context: 'x'.repeat(140_000),
      options: [],
      allowMultiple: false,
      allowFreeform: true,
      allowComment: false,
    };
    const ctx = { askId: 'a1', signal: new AbortController().signal, reportProgress() {} };
    await expect(provider.ask({ questions: [huge] }, ctx)).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      data: { limit: 131072 },
    });
    expect(called).toBe(false);
  });

  it('refuses a host result it cannot understand', async () => {
    const outcome = await serviceWith(async () => ({ status: 'maybe' }) as never).ask(pick);
    expect(outcome).toMatchObject({ status: 'cancelled', reason: 'provider-error' });
  });

  it('expects a function', () => {
    expect(() => createFormProvider('host' as never)).toThrow(/`requestForm` to be a function/);
  });
});
