/** Each ask's page at `a/<askId>`: showing the form (GET) and taking the answer (POST). */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { UiForm, UiFormAnswer } from '../contracts/form.js';
import type { AnsweredBy } from '../contracts/outcome.js';
import type { Clock } from '../engine/clock.js';
import type { AskInfo, ResponseReceipt } from '../engine/service-contract.js';
import { buildAskUserForm } from '../form/build-form.js';
import { decodeAskUserFormAnswer } from '../form/decode-answer.js';
import { isUserInteractionError } from '../rules/errors.js';
import { samePerson } from '../rules/person-id.js';
import { decidedBy, describeQuorum, type QuorumProgress } from '../rules/quorum.js';
import {
  type AnswerPageInput,
  renderAnswerPage,
  renderNoticePage,
  renderRecordedPage,
} from './answer-page.js';
import { describeState } from './ask-state.js';
import { BodyError, type FormFields, onlyOnce } from './form-body.js';
import { htmlResponse } from './http-response.js';
import type { LinkTokenSigner } from './link-token.js';
import { type HostParsedBody, readFormBody } from './read-body.js';
import { type PostedValues, refusalInWords } from './refusal-words.js';
import { formatTime } from './shown-time.js';
import type { WebAnswerService } from './web-service.js';

/** Longer ids are no ids of this engine: answered 404 before any work. */
export const MAX_ASK_ID_LENGTH = 256;

/** The answer page of each ask: the token is checked before the store is read. */
export class AnswerRoutes {
  constructor(
    private readonly service: WebAnswerService,
    private readonly signer: LinkTokenSigner,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly maxBodyBytes: number,
  ) {}

  async show(askId: string, token: string): Promise<Response> {
    const opened = await this.openAsk(askId, token);
    if (opened instanceof Response) return opened;
    const { ask, by } = opened;
    if (ask.quorum !== undefined) {
      const refusal = quorumRefusal(ask.quorum, by);
      if (refusal !== undefined) return refusal;
    }
    const form = buildAskUserForm(ask.questions);
    return htmlResponse(200, renderAnswerPage(this.pageInput(askId, ask, form, token, by)));
  }

  /** What the form page shows of an ask, to the person `by` names (if the link names one). */
  private pageInput(
    askId: string,
    ask: AskInfo,
    form: UiForm,
    token: string,
    by: AnsweredBy | undefined,
  ): AnswerPageInput {
    return {
      askId,
      questions: ask.questions,
      form,
      token,
      now: this.clock.now(),
      ...(ask.agent === undefined ? {} : { agent: ask.agent }),
      ...(ask.deadlineAt === undefined ? {} : { deadlineAt: ask.deadlineAt }),
      ...(by === undefined ? {} : { answeringAs: by.recipient }),
      ...(ask.quorum === undefined ? {} : { quorum: ask.quorum }),
    };
  }

  /** Takes a posted answer: the request's own body, or `host`, the body a host server parsed. */
  async answer(askId: string, request: Request, host?: HostParsedBody): Promise<Response> {
    let body: FormFields;
    let token: string;
    try {
      body = await readFormBody(request, this.maxBodyBytes, host);
      token = onlyOnce(body, 'token') ?? '';
    } catch (error) {
      return notAccepted(error);
    }
    const opened = await this.openAsk(askId, token, 'pass');
    if (opened instanceof Response) return opened;
    const { ask, by } = opened;
    const form = buildAskUserForm(ask.questions);
    let posted: UiFormAnswer & { values: PostedValues };
    try {
      posted = readPostedAnswer(form, body);
    } catch (error) {
      return notAccepted(error);
    }
    const refuse = (error: unknown) =>
      htmlResponse(
        422,
        renderAnswerPage({
          ...this.pageInput(askId, ask, form, token, by),
          values: posted.values,
          error: refusalInWords(error, ask.questions, form, posted.values),
        }),
      );
    let answers: AskUserQuestionAnswer[] | null;
    try {
      answers = decodeAskUserFormAnswer(ask.questions, posted);
    } catch (error) {
      if (!isUserInteractionError(error)) throw error;
      return ask.final ? htmlResponse(409, settledPage(ask)) : refuse(error);
    }
    if (ask.quorum !== undefined && !ask.final) {
      // Who may respond and who already did is the machine's to refuse (and audit), below.
      const refusal = quorumRefusal(ask.quorum, by, answers === null ? 'decline' : 'respond');
      if (refusal !== undefined) return refusal;
    }
    if (answers === null) return this.decline(askId, ask);
    // A recipient's link answers as that recipient, through the channel it names (else 'web').
    const answeredBy =
      by === undefined ? undefined : { recipient: by.recipient, channel: by.channel ?? 'web' };
    let receipt: ResponseReceipt;
    try {
      receipt = await this.service.respond(
        askId,
        answers,
        answeredBy === undefined ? undefined : { by: answeredBy },
      );
    } catch (error) {
      if (isUserInteractionError(error, 'ASK_SETTLED')) return this.settled(askId, ask);
      if (isUserInteractionError(error, 'INVALID_REQUEST')) {
        // A response the quorum refused (raced in on another page or host since the GET).
        const reason = (error.data as { reason?: unknown } | undefined)?.reason;
        if (reason === 'duplicate' || reason === 'not-allowed') {
          return htmlResponse(409, renderNoticePage(quorumNoticeTitle(reason), error.message));
        }
      }
      if (
        isUserInteractionError(error, 'INVALID_ANSWER') ||
        isUserInteractionError(error, 'LIMIT_EXCEEDED')
      ) {
        return refuse(error);
      }
      throw error;
    }
    const { outcome, quorum } = receipt;
    if (quorum !== undefined) {
      // Of a response, what this person gave; the decision (if this made one) is on the ask.
      return htmlResponse(200, renderRecordedPage(ask.questions, answers, answeredBy, quorum));
    }
    // What the service recorded: option titles in the option's own spelling.
    const recorded = outcome?.status === 'answered' ? outcome.answers : answers;
    return htmlResponse(
      200,
      renderRecordedPage(
        ask.questions,
        recorded,
        outcome?.status === 'answered' ? outcome.answeredBy : undefined,
      ),
    );
  }

  /** The person declined: the ask ends cancelled by them, on whichever service delivers it. */
  private async decline(askId: string, ask: AskInfo): Promise<Response> {
    try {
      await this.service.cancel(askId, 'user', 'The person declined to answer on the answer page.');
    } catch (error) {
      if (!isUserInteractionError(error, 'ASK_SETTLED')) throw error;
      return this.settled(askId, ask);
    }
    return htmlResponse(
      200,
      renderNoticePage(
        'You declined to answer',
        'Nothing was chosen for you; whoever asked is told that you declined.',
      ),
    );
  }

  private async settled(askId: string, ask: AskInfo): Promise<Response> {
    const now = await this.service.get(askId);
    return htmlResponse(409, settledPage(now ?? ask));
  }

  /**
   * The ask the token opens, and whom the token is for when it is a recipient's, or the refusal
   * to send. The token is checked before the store is read. A settled ask is refused here only
   * when `settled` is 'refuse' (showing the page); a submit goes on to the service, which
   * refuses it and audits the attempt.
   */
  private async openAsk(
    askId: string,
    token: string,
    settled: 'refuse' | 'pass' = 'refuse',
  ): Promise<{ ask: AskInfo; by: AnsweredBy | undefined } | Response> {
    const check = this.signer.verify(askId, token, this.clock.now());
    if (!check.ok) {
      if (check.problem === 'expired') {
        return htmlResponse(
          410,
          renderNoticePage(
            'This link has expired',
            "The link was valid until the question's deadline or its own time limit. Ask the sender for a new link if the question is still open.",
          ),
        );
      }
      return htmlResponse(
        403,
        renderNoticePage(
          'This link is not valid',
          'The link is incomplete or was not made for this question. Open the link exactly as you received it.',
        ),
      );
    }
    const ask = await this.service.get(askId);
    if (ask === undefined) {
      return htmlResponse(
        404,
        renderNoticePage('Question not found', 'This question is no longer stored on the server.'),
      );
    }
    if (ask.final && settled === 'refuse') return htmlResponse(410, settledPage(ask));
    return { ask, by: check.by };
  }
}

/** A refused body: the connection closes after the answer, so no more of that body is read. */
function notAccepted(error: unknown): Response {
  if (!(error instanceof BodyError)) throw error;
  const response = htmlResponse(error.status, renderNoticePage('Not accepted', error.message));
  response.headers.set('Connection', 'close');
  return response;
}

/**
 * The form answer as posted: the action and every field, unknown ones kept for the codec to
 * refuse. Only a multi-select field may be sent more than once (`BodyError` 400 otherwise).
 */
function readPostedAnswer(form: UiForm, body: FormFields): UiFormAnswer & { values: PostedValues } {
  const multi = new Set(
    form.fields.filter((field) => field.type === 'multi-choice').map((field) => field.id),
  );
  const values: PostedValues = Object.create(null);
  for (const [name, sent] of body) {
    if (name === 'token' || name === 'action') continue;
    // Browsers send a textarea's line breaks as CRLF; the person typed LF.
    const all = (multi.has(name) ? sent : [onlyOnce(body, name)!]).map((value) =>
      value.replace(/\r\n?/g, '\n'),
    );
    values[name] = multi.has(name) ? all : all[0]!;
  }
  return { action: onlyOnce(body, 'action') ?? 'submit', values };
}

/**
 * Why a link may not answer a quorum ask, as a page, or `undefined` when it may: a link that
 * names nobody, a decline (one person cannot dismiss what several decide), and when showing
 * the form, a person who already responded or is not in `from` (a response from them is sent
 * on to the machine, which refuses and audits it).
 */
function quorumRefusal(
  quorum: QuorumProgress,
  by: AnsweredBy | undefined,
  action: 'show' | 'respond' | 'decline' = 'show',
): Response | undefined {
  const [rule, standing] = describeQuorum(quorum);
  if (by === undefined) {
    return htmlResponse(
      403,
      renderNoticePage(
        'This question needs your own link',
        `Several people decide this question, each through a link made for them; this link names nobody. ${rule}`,
      ),
    );
  }
  if (action === 'decline') {
    return htmlResponse(
      409,
      renderNoticePage(
        'Declining does not decide this question',
        `Several people decide this question; pick an answer, or close this page. ${rule}`,
      ),
    );
  }
  if (action === 'respond') return undefined;
  if (quorum.from !== undefined && !quorum.from.some((id) => samePerson(id, by.recipient))) {
    return htmlResponse(
      403,
      renderNoticePage(
        quorumNoticeTitle('not-allowed'),
        `${by.recipient} is not among the people who decide this question. ${rule}`,
      ),
    );
  }
  if (quorum.responded.some((id) => samePerson(id, by.recipient))) {
    return htmlResponse(
      409,
      renderNoticePage(
        quorumNoticeTitle('duplicate'),
        `Your response is recorded and counts once. ${standing}`,
      ),
    );
  }
  return undefined;
}

function quorumNoticeTitle(reason: 'duplicate' | 'not-allowed'): string {
  return reason === 'duplicate'
    ? 'You have already responded'
    : 'This question is not yours to decide';
}

/**
 * A settled ask's page: its state and who decided it and when (never what): who answered, who
 * vetoed, or whose responses made (or failed to make) the quorum.
 */
function settledPage(ask: AskInfo): string {
  return renderNoticePage(
    'Nothing left to answer',
    `${settledInWords(ask)} Its outcome is fixed, so this page cannot change it; you can close it.`,
  );
}

/** How a settled ask ended and who decided it and when (never what), as plain sentences. */
export function settledInWords(ask: AskInfo): string {
  const { outcome } = ask;
  const when = formatTime(ask.updatedAt);
  const decided = decidedBy(outcome);
  let by = '';
  if (decided?.kind === 'veto') by = ` It was ended by a veto from ${decided.names[0]} on ${when}.`;
  else if (decided?.kind === 'quorum') {
    by = ` It was decided by the responses of ${decided.names.join(', ')} on ${when}.`;
  } else if (decided?.kind === 'no-quorum') {
    by = ` Everyone who may respond did (${decided.names.join(', ')}) without reaching the quorum.`;
  } else if (decided?.kind === 'answer') {
    const { recipient, channel } = decided.answeredBy;
    by = ` It was answered by ${recipient}${channel === undefined ? '' : ` (via ${channel})`} on ${when}.`;
  }
  return `${describeState(ask.state)}${by}`;
}
