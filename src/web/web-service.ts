/** The part of the interaction service the web server uses: read an ask, answer it, watch events. */
import type { Observable } from 'rxjs';
import type { AskUserQuestionAnswer } from '../contracts/answer.js';
import type { AskOutcome } from '../contracts/outcome.js';
import type { AskUserQuestion } from '../contracts/question.js';
import type { AskAuditEvent, AskState } from '../engine/audit.js';

/** An ask as `service.get` returns it. */
export interface WebAskView {
  askId: string;
  state: AskState;
  questions: AskUserQuestion[];
  outcome?: AskOutcome;
  deadlineAt?: number;
  createdAt: number;
  updatedAt: number;
}

export interface WebAnswerService {
  get(askId: string): Promise<WebAskView | undefined>;
  answer(askId: string, answers: readonly AskUserQuestionAnswer[]): Promise<unknown>;
  history(askId: string): AsyncIterable<AskAuditEvent>;
  readonly events$: Observable<AskAuditEvent>;
}
