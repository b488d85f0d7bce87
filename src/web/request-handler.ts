/** Routes the server's requests: static files, the live view, and each ask's page and submit. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { UiForm, UiFormAnswer } from '../contracts/form.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { Clock } from '../engine/clock.js';
import type { AskInfo } from '../engine/service-contract.js';
import { buildAskUserForm } from '../form/build-form.js';
import { decodeAskUserFormAnswer } from '../form/decode-answer.js';
import { isUserInteractionError } from '../rules/errors.js';
import {
  type PostedValues,
  renderAnswerPage,
  renderNoticePage,
  renderRecordedPage,
} from './answer-page.js';
import { describeState } from './ask-state.js';
import type { Assets } from './assets.js';
import { BodyError, type FormFields, onlyOnce } from './form-body.js';
import { send, sendHtml } from './http-response.js';
import type { LinkTokenSigner } from './link-token.js';
import type { OperatorView } from './operator-view.js';
import { readFormBody } from './read-body.js';
import type { WebAnswerService } from './web-service.js';

const MAX_ASK_ID_LENGTH = 256;

/** Routes one request: static files, the live view, and the answer page (show and submit). */
export class AnswerHandler {
  constructor(
    private readonly service: WebAnswerService,
    private readonly signer: LinkTokenSigner,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly assets: Assets,
    private readonly maxBodyBytes: number,
    private readonly operator: OperatorView | undefined,
  ) {}

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://answer.invalid');
    const path = url.pathname;
    const method = request.method ?? 'GET';
    if (path.startsWith('/assets/')) {
      if (!allow(method, ['GET', 'HEAD'], response)) return;
      const asset = await this.assets.get(path.slice('/assets/'.length));
      if (asset === undefined) return notFound(response);
      send(response, 200, asset.type, asset.body, { 'Cache-Control': 'public, max-age=300' });
      return;
    }
    if (path === '/asks' || path.startsWith('/asks/')) {
      if (this.operator === undefined) return notFound(response);
      if (!allow(method, ['GET', 'HEAD'], response)) return;
      await this.operator.handle(path, url, request, response);
      return;
    }
    if (path === '/favicon.ico') {
      response.writeHead(204, { 'Cache-Control': 'public, max-age=86400' }).end();
      return;
    }
    const match = /^\/a\/([^/]+)$/.exec(path);
    if (match === null) return notFound(response);
    let askId: string;
    try {
      askId = decodeURIComponent(match[1]!);
    } catch {
      return notFound(response);
    }
    if (askId.length === 0 || askId.length > MAX_ASK_ID_LENGTH) return notFound(response);
    if (!allow(method, ['GET', 'HEAD', 'POST'], response)) return;
    if (method === 'POST') await this.answer(askId, request, response);
    else await this.show(askId, url.searchParams.get('t') ?? '', response);
  }

  private async show(askId: string, token: string, response: ServerResponse): Promise<void> {
    const ask = await this.openAsk(askId, token, response);
    if (ask === undefined) return;
    const form = buildAskUserForm(ask.questions);
    sendHtml(response, 200, renderAnswerPage({ askId, questions: ask.questions, form, token }));
  }

  private async answer(
    askId: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const notAccepted = (error: unknown) => {
      if (!(error instanceof BodyError)) throw error;
      response.setHeader('Connection', 'close');
      sendHtml(response, error.status, renderNoticePage('Not accepted', error.message));
    };
    let body: FormFields;
    let token: string;
    try {
      body = await readFormBody(request, this.maxBodyBytes);
      token = onlyOnce(body, 'token') ?? '';
    } catch (error) {
      return notAccepted(error);
    }
    const ask = await this.openAsk(askId, token, response, 'pass');
    if (ask === undefined) return;
    const replayed = () => sendHtml(response, 409, settledPage(ask.state));
    const form = buildAskUserForm(ask.questions);
    let posted: UiFormAnswer & { values: PostedValues };
    try {
      posted = readPostedAnswer(form, body);
    } catch (error) {
      return notAccepted(error);
    }
    const refuse = (message: string) =>
      sendHtml(
        response,
        422,
        renderAnswerPage({
          askId,
          questions: ask.questions,
          form,
          token,
          values: posted.values,
          error: message,
        }),
      );
    let answers: AskUserQuestionAnswer[] | null;
    try {
      answers = decodeAskUserFormAnswer(ask.questions, posted);
    } catch (error) {
      if (!isUserInteractionError(error)) throw error;
      return ask.final ? replayed() : refuse(error.message);
    }
    if (answers === null) return this.decline(askId, ask, response);
    let outcome: AskOutcome;
    try {
      outcome = await this.service.answer(askId, answers);
    } catch (error) {
      if (isUserInteractionError(error, 'ASK_SETTLED')) {
        const now = await this.service.get(askId);
        return sendHtml(response, 409, settledPage(now?.state ?? ask.state));
      }
      if (
        isUserInteractionError(error, 'INVALID_ANSWER') ||
        isUserInteractionError(error, 'LIMIT_EXCEEDED')
      ) {
        return refuse(error.message);
      }
      throw error;
    }
    // What the service recorded: option titles in the option's own spelling.
    const recorded = outcome.status === 'answered' ? outcome.answers : answers;
    sendHtml(response, 200, renderRecordedPage(ask.questions, recorded));
  }

  /** The person declined: the ask ends cancelled by them, on whichever service delivers it. */
  private async decline(askId: string, ask: AskInfo, response: ServerResponse): Promise<void> {
    try {
      await this.service.cancel(askId, 'user', 'The person declined to answer on the answer page.');
    } catch (error) {
      if (!isUserInteractionError(error, 'ASK_SETTLED')) throw error;
      const now = await this.service.get(askId);
      return sendHtml(response, 409, settledPage(now?.state ?? ask.state));
    }
    sendHtml(
      response,
      200,
      renderNoticePage(
        'You declined to answer',
        'Nothing was chosen for you; whoever asked is told that you declined.',
      ),
    );
  }

  /**
   * The ask the token opens, or undefined once a refusal was sent. The token is checked before
   * the store is read. A settled ask is refused here only when `settled` is 'refuse' (showing
   * the page); a submit goes on to the service, which refuses it and audits the attempt.
   */
  private async openAsk(
    askId: string,
    token: string,
    response: ServerResponse,
    settled: 'refuse' | 'pass' = 'refuse',
  ): Promise<AskInfo | undefined> {
    const check = this.signer.verify(askId, token, this.clock.now());
    if (!check.ok) {
      if (check.problem === 'expired') {
        sendHtml(
          response,
          410,
          renderNoticePage(
            'This link has expired',
            "The link was valid until the question's deadline or its own time limit. Ask the sender for a new link if the question is still open.",
          ),
        );
      } else {
        sendHtml(
          response,
          403,
          renderNoticePage(
            'This link is not valid',
            'The link is incomplete or was not made for this question. Open the link exactly as you received it.',
          ),
        );
      }
      return undefined;
    }
    const ask = await this.service.get(askId);
    if (ask === undefined) {
      sendHtml(
        response,
        404,
        renderNoticePage('Question not found', 'This question is no longer stored on the server.'),
      );
      return undefined;
    }
    if (ask.final && settled === 'refuse') {
      sendHtml(response, 410, settledPage(ask.state));
      return undefined;
    }
    return ask;
  }
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

function settledPage(state: AskInfo['state']): string {
  return renderNoticePage(
    'Nothing left to answer',
    `${describeState(state)} Its outcome is fixed, so this page cannot change it; you can close it.`,
  );
}

function allow(method: string, methods: string[], response: ServerResponse): boolean {
  if (methods.includes(method)) return true;
  send(response, 405, 'text/plain; charset=utf-8', `Method ${method} is not allowed here.\n`, {
    Allow: methods.join(', '),
  });
  return false;
}

function notFound(response: ServerResponse): void {
  sendHtml(response, 404, renderNoticePage('Not found', 'There is no page at this address.'));
}
