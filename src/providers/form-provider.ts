/** An `AskProvider` on top of any host that can show a generic form and return its answer. */
import type { UiForm, UiFormAnswer } from '../contracts/form.js';
import type { AnsweredBy, ProviderOutcome } from '../contracts/outcome.js';
import type { AskUserRequest } from '../contracts/request.js';
import { raceAbort } from '../engine/abortable.js';
import type { AskProvider, AskProviderContext } from '../engine/provider.js';
import { buildAskUserForm } from '../form/build-form.js';
import { decodeAskUserFormAnswer } from '../form/decode-answer.js';
import { describe } from '../rules/describe.js';

/** What the host gets along with the form. */
export interface FormRequestContext {
  /** Aborted, with the cause as its reason, when the ask ends without this form (timeout, abort, drain). */
  signal: AbortSignal;
  /** Absolute time (ms since the epoch, on the service's clock) when the ask times out. */
  deadlineAt?: number;
  askId: string;
  toolCallId?: string;
  sessionId?: string;
}

/**
 * What the host resolves with:
 * - the form's answer (`{ action, values }`): submitted or cancelled by the person; with
 *   `answeredBy`, who submitted it (recorded as the outcome's `answeredBy`);
 * - `deferred`: the form lives on elsewhere (a chat message, a link); the ask resumes through
 *   `service.resume(interactionId, answers)`;
 * - `unsupported`: this host or client cannot show forms; the ask ends `cancelled`/`unavailable`;
 * - `drained`: the host is shutting down or restarting; the ask ends `aborted` with `cause`.
 */
export type FormHostResult =
  | (UiFormAnswer & { answeredBy?: AnsweredBy })
  | { status: 'deferred'; interactionId: string; message?: string }
  | { status: 'unsupported'; message?: string }
  | { status: 'drained'; cause: unknown };

/**
 * The host side of a form provider: shows the form to a person and resolves with their answer,
 * a deferral, `unsupported` or `drained`; it should stop when `ctx.signal` aborts.
 */
export type FormHost = (form: UiForm, ctx: FormRequestContext) => Promise<FormHostResult>;

/**
 * The error a form provider rejects with when its host drained or restarted: `name` is
 * `'AbortError'`, `cause` is the host's original cause and `message` its text, so the ask ends
 * `aborted` with that cause rather than as a provider failure.
 */
export class FormHostDrainedError extends Error {
  override readonly name = 'AbortError';

  constructor(cause: unknown) {
    super(causeText(cause), { cause });
  }
}

/**
 * Builds the ask_user form for each ask, hands it to `requestForm`, and decodes what comes back
 * with the codec, so only answers the person could have given reach the engine. Limits are
 * checked before the host is called; abort and deadline are forwarded.
 *
 * @example
 * service.registerProvider(createFormProvider((form, { signal }) => myHost.showForm(form, { signal })));
 */
export function createFormProvider(requestForm: FormHost): AskProvider {
  if (typeof requestForm !== 'function') {
    throw new TypeError(
      `Expected \`requestForm\` to be a function (form, ctx) => Promise<answer>, got ${describe(requestForm)}.`,
    );
  }
  return {
    async ask(request: AskUserRequest, ctx: AskProviderContext): Promise<ProviderOutcome> {
      const { signal } = ctx;
      signal.throwIfAborted();
      // Throws LIMIT_EXCEEDED (and friends) before anything is shown.
      const form = buildAskUserForm(request.questions);
      const hostCtx: FormRequestContext = { signal, askId: ctx.askId };
      if (ctx.deadlineAt !== undefined) hostCtx.deadlineAt = ctx.deadlineAt;
      if (ctx.toolCallId !== undefined) hostCtx.toolCallId = ctx.toolCallId;
      if (ctx.sessionId !== undefined) hostCtx.sessionId = ctx.sessionId;
      // A host that ignores the signal must not keep the provider call alive: it ends with the
      // signal's reason as soon as the signal aborts.
      const result = await raceAbort(requestForm(form, hostCtx), signal);
      return toOutcome(request, result);
    },
  };
}

function toOutcome(request: AskUserRequest, result: unknown): ProviderOutcome {
  if (typeof result !== 'object' || result === null) {
    throw new TypeError(
      `The form host resolved with ${describe(result)}; expected a form answer { action, values } or { status }.`,
    );
  }
  if ('action' in result) {
    // Who answered is the host's to say, checked by the service like any provider's; the form
    // answer itself is only `{ action, values }`.
    const { answeredBy, ...answer } = result as UiFormAnswer & { answeredBy?: AnsweredBy };
    // A refusal's message becomes the outcome's message and lands in audit events, which may be
    // redacted: it names the question and field, never what the client sent.
    const answers = decodeAskUserFormAnswer(request.questions, answer, { quoteInput: false });
    if (answers === null) return { status: 'cancelled', reason: 'user' };
    return answeredBy === undefined
      ? { status: 'answered', answers }
      : { status: 'answered', answers, answeredBy };
  }
  const { status, message } = result as { status?: unknown; message?: unknown };
  const withMessage = typeof message === 'string' ? { message } : {};
  switch (status) {
    case 'deferred':
      // The service refuses a missing or empty id with a message of its own.
      return {
        status: 'deferred',
        interactionId: (result as { interactionId: string }).interactionId,
        ...withMessage,
      };
    case 'unsupported':
      return {
        status: 'cancelled',
        reason: 'unavailable',
        message: typeof message === 'string' ? message : 'The host cannot show forms.',
      };
    case 'drained':
      throw new FormHostDrainedError((result as { cause?: unknown }).cause);
    default:
      throw new TypeError(
        `The form host resolved with status ${describe(status)}; expected a form answer, "deferred", "unsupported" or "drained".`,
      );
  }
}

function causeText(cause: unknown): string {
  const message = (cause as { message?: unknown } | null)?.message;
  if (typeof message === 'string' && message !== '') return message;
  if (typeof cause === 'string' && cause !== '') return cause;
  return 'The form host drained or restarted.';
}
