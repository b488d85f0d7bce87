/**
 * One-tap answers from push notifications: per option a signed URL (`a/<askId>/pick/<n>?t=…`)
 * that answers the ask with that option when POSTed, once.
 */
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AnsweredBy } from '../contracts/outcome.js';
import type { AskUserOption, AskUserQuestion } from '../contracts/question.js';
import type { Clock } from '../engine/clock.js';
import type { AskInfo, ResponseReceipt } from '../engine/service-contract.js';
import { isUserInteractionError } from '../rules/errors.js';
import { escapeControlCharacters } from '../rules/escape-text.js';
import { describeQuorum } from '../rules/quorum.js';
import { settledInWords } from './answer-routes.js';
import { methodNotAllowed, respond } from './http-response.js';
import type { LinkTokenSigner } from './link-token.js';
import type { WebAnswerService } from './web-service.js';

/** A button of a push notification: the option it picks and the URL that picks it when POSTed. */
export interface PushAction {
  /** The option's title, as the question spells it. */
  readonly label: string;
  /** POST (no body needed) to answer with this option; a GET changes nothing. */
  readonly url: string;
}

/**
 * The options a push button can pick: those of the ask's one question when it is single-choice
 * and has from 1 to `max` options; undefined otherwise (several questions, multi-select, typed
 * answers only, or more options than the notification has buttons), when only the page fits.
 */
export function oneTapOptions(
  questions: readonly AskUserQuestion[],
  max: number,
): readonly AskUserOption[] | undefined {
  if (questions.length !== 1) return undefined;
  const [question] = questions as [AskUserQuestion];
  if (question.allowMultiple || question.options.length === 0) return undefined;
  return question.options.length <= max ? question.options : undefined;
}

/** Option positions in a pick URL: 1 up, no leading zero, one spelling per option. */
const POSITION = /^[1-9][0-9]{0,2}$/;

/** The pick endpoint: the token is checked before the store is read, and only a POST answers. */
export class PushAnswerRoute {
  constructor(
    private readonly service: WebAnswerService,
    private readonly signer: Pick<LinkTokenSigner, 'signPick' | 'verifyPick'>,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  /** One action per option for `by`, each signed until `expiresAt`, as URLs under `base`. */
  actions(
    ask: AskInfo,
    by: AnsweredBy,
    expiresAt: number,
    base: string,
    max: number,
  ): PushAction[] {
    const options = oneTapOptions(ask.questions, max) ?? [];
    return options.map((option, i) => {
      const token = this.signer.signPick(ask.askId, i + 1, by, expiresAt);
      return {
        label: option.title,
        url: `${base}/a/${encodeURIComponent(ask.askId)}/pick/${i + 1}?t=${token}`,
      };
    });
  }

  async answer(askId: string, position: string, token: string, method: string): Promise<Response> {
    // A GET never answers: link previewers and scanners fetch GETs.
    if (method !== 'POST') return methodNotAllowed(method, ['POST']);
    if (!POSITION.test(position)) return text(404, 'There is no such option.');
    const check = this.signer.verifyPick(askId, Number(position), token, this.clock.now());
    if (!check.ok) {
      return check.problem === 'expired'
        ? text(
            410,
            'This button has expired: it worked until the question’s deadline or its own time limit. Nothing was recorded.',
          )
        : text(
            403,
            'This button is not valid: its signature does not fit this question and option. Nothing was recorded.',
          );
    }
    const ask = await this.service.get(askId);
    if (ask === undefined) return text(404, 'This question is no longer stored on the server.');
    const option = oneTapOptions(ask.questions, Number.POSITIVE_INFINITY)?.[Number(position) - 1];
    if (option === undefined) return text(404, 'There is no such option.');
    const answers: AskUserQuestionAnswer[] = [
      {
        questionId: ask.questions[0]!.id,
        response: { kind: 'selection', selections: [option.title] },
      },
    ];
    // The token names the recipient and the channel that reached them.
    const by = { recipient: check.by.recipient, channel: check.by.channel ?? 'web' };
    let receipt: ResponseReceipt;
    try {
      receipt = await this.service.respond(askId, answers, { by });
    } catch (error) {
      if (isUserInteractionError(error, 'ASK_SETTLED')) return this.settled(askId, by, option);
      if (isUserInteractionError(error, 'INVALID_REQUEST')) {
        const reason = (error.data as { reason?: unknown } | undefined)?.reason;
        if (reason === 'duplicate') return text(409, `Already recorded: ${error.message}`);
        if (reason === 'not-allowed') return text(403, error.message);
      }
      if (
        isUserInteractionError(error, 'INVALID_ANSWER') ||
        isUserInteractionError(error, 'LIMIT_EXCEEDED')
      ) {
        return text(422, `Not recorded: ${error.message}`);
      }
      throw error;
    }
    if (receipt.quorum !== undefined) {
      return text(
        200,
        `Recorded: ${by.recipient} responded “${option.title}”. ${describeQuorum(receipt.quorum)[1]}`,
      );
    }
    return text(200, `Recorded: ${by.recipient} answered “${option.title}”.`);
  }

  /**
   * A POST after the ask settled changed nothing (the service refused and audited it). The same
   * person repeating the same pick (a push client's retry, a double tap) hears it is recorded;
   * anyone else hears how the ask ended and who decided it.
   */
  private async settled(askId: string, by: AnsweredBy, option: AskUserOption): Promise<Response> {
    const ask = await this.service.get(askId);
    const outcome = ask?.outcome;
    if (
      outcome?.status === 'answered' &&
      outcome.answeredBy?.recipient === by.recipient &&
      outcome.answeredBy.channel === by.channel &&
      outcome.responses === undefined &&
      pickedOnly(outcome.answers, option.title)
    ) {
      return text(
        200,
        `Already recorded: ${by.recipient} answered “${option.title}”. Nothing changed.`,
      );
    }
    const ended = ask === undefined ? 'This question has been settled.' : settledInWords(ask);
    return text(409, `Not recorded: ${ended} Its outcome is fixed.`);
  }
}

function pickedOnly(answers: readonly AskUserQuestionAnswer[], title: string): boolean {
  const response = answers[0]?.response;
  return (
    answers.length === 1 &&
    response?.kind === 'selection' &&
    response.selections.length === 1 &&
    response.selections[0] === title
  );
}

/** Plain text; option titles and names with their control characters shown as escapes. */
function text(status: number, body: string): Response {
  return respond(status, 'text/plain; charset=utf-8', `${escapeControlCharacters(body)}\n`);
}
