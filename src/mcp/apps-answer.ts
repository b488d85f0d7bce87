/**
 * The app-only `ask_user_answer` tool: the MCP Apps form's answer, checked like the answer
 * page's (the same signed token, codec and service calls), settled once through the store.
 */
import { Type } from '@sinclair/typebox';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import { UiFormAnswerSchema } from '../contracts/form.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { Clock } from '../engine/clock.js';
import type { AskInfo, InteractionService } from '../engine/service-contract.js';
import { buildAskUserForm } from '../form/build-form.js';
import { decodeAskUserFormAnswer } from '../form/decode-answer.js';
import { compileCheck } from '../rules/compiled-check.js';
import { isUserInteractionError } from '../rules/errors.js';
import { formatAskUserToolResult } from '../tool/tool-result.js';
import { describeState } from '../web/ask-state.js';
import type { LinkTokenSigner } from '../web/link-token.js';
import { refusalInWords } from '../web/refusal-words.js';
import { formatTime } from '../web/shown-time.js';
import type { AppAnswerOutcome } from './apps-contract.js';

/** The tool's arguments, as the view sends them. */
export const AppAnswerArgumentsSchema = Type.Object(
  {
    askId: Type.String({ minLength: 1, maxLength: 256 }),
    token: Type.String({ minLength: 1, maxLength: 2048 }),
    answer: UiFormAnswerSchema,
  },
  { additionalProperties: false },
);

const argumentsCheck = compileCheck(AppAnswerArgumentsSchema);

/** A tool result (a `CallToolResult`): the outcome as text (what the view shows) and as data. */
export type AppAnswerResult = {
  content: [{ type: 'text'; text: string }];
  structuredContent: AppAnswerOutcome;
  isError?: true;
};

/** Thrown for arguments that are not the tool's: a caller's mistake, not a person's. */
export class AppAnswerArgumentsError extends TypeError {}

/**
 * Takes one answer from the form: the token must be the one signed for `askId` and not
 * expired; the answer is decoded against the ask's stored questions and settled through
 * `service.answer` (or `service.cancel` for "Decline"), so a second answer, or one after the
 * ask settled anywhere else, is refused and audited by the service.
 */
export async function answerFromApp(
  service: Pick<InteractionService, 'get' | 'answer' | 'cancel'>,
  signer: LinkTokenSigner,
  clock: Pick<Clock, 'now'>,
  args: unknown,
): Promise<AppAnswerResult> {
  if (!argumentsCheck.check(args)) {
    const problem = argumentsCheck.firstError(args);
    throw new AppAnswerArgumentsError(
      `ask_user_answer takes { askId, token, answer: { action, values } }; ${problem === undefined ? 'got something else' : `${problem.path || 'the arguments'}: ${problem.message}`}. Send what the form collected.`,
    );
  }
  const { askId, token, answer } = args;
  const check = signer.verify(askId, token, clock.now());
  if (!check.ok) {
    return closed(
      check.problem === 'expired'
        ? 'This form has expired (at the question’s deadline, or after its own time limit); nothing was recorded.'
        : `This form’s token does not fit ask ${JSON.stringify(askId)}: it was signed for another question or changed. Nothing was recorded.`,
    );
  }
  const ask = await service.get(askId);
  if (ask === undefined) return closed('This question no longer exists; nothing was recorded.');
  const form = buildAskUserForm(ask.questions);
  let answers: AskUserQuestionAnswer[] | null;
  try {
    answers = decodeAskUserFormAnswer(ask.questions, answer);
  } catch (error) {
    if (!isUserInteractionError(error)) throw error;
    if (ask.final) return settledElsewhere(ask);
    return refused(refusalInWords(error, ask.questions, form, answer.values));
  }
  try {
    if (answers === null) {
      const outcome = await service.cancel(
        askId,
        'user',
        'The person declined to answer in the MCP App form.',
      );
      return settled(
        ask,
        'You declined to answer',
        'Nothing was chosen for you; the agent is told that you declined.',
        outcome,
      );
    }
    const outcome = await service.answer(askId, answers);
    return settled(
      ask,
      'Answer recorded',
      'Thank you. Your answer was recorded and is passed to the agent.',
      outcome,
    );
  } catch (error) {
    if (isUserInteractionError(error, 'ASK_SETTLED')) {
      return settledElsewhere((await service.get(askId)) ?? ask);
    }
    if (
      isUserInteractionError(error, 'INVALID_ANSWER') ||
      isUserInteractionError(error, 'LIMIT_EXCEEDED')
    ) {
      return refused(refusalInWords(error, ask.questions, form, answer.values));
    }
    throw error;
  }
}

function settled(
  ask: AskInfo,
  title: string,
  message: string,
  outcome: AskOutcome,
): AppAnswerResult {
  const { content } = formatAskUserToolResult(ask.questions, outcome, {
    toolCallId: 'ask_user_answer',
    askId: ask.askId,
  });
  const result = `Reply to ask_user (ask ${ask.askId}), sent from its form:\n\n${content[0].text}`;
  return {
    content: [{ type: 'text', text: `${title}. ${message}` }],
    structuredContent: { status: 'settled', title, message, result },
  };
}

function settledElsewhere(ask: AskInfo): AppAnswerResult {
  const when = ask.final ? ` at ${formatTime(ask.updatedAt)}` : '';
  return closed(
    `${describeState(ask.state)} It was settled${when} before this answer arrived; your answer was not recorded.`,
  );
}

function refused(message: string): AppAnswerResult {
  return {
    content: [{ type: 'text', text: message }],
    structuredContent: { status: 'refused', message },
    isError: true,
  };
}

function closed(message: string): AppAnswerResult {
  return {
    content: [{ type: 'text', text: message }],
    structuredContent: { status: 'closed', message },
    isError: true,
  };
}
