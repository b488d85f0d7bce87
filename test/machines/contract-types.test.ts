/** The machine keeps structural copies of the contract types (it imports nothing from src/). */
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AskMachineAnswer,
  AskMachineAnsweredBy,
  AskMachineOutcome,
  AskMachineQuorumResponse,
} from '../../machines/ask.machine.js';
import type {
  AnsweredBy,
  AskOutcome,
  AskUserQuestionAnswer,
  QuorumResponse,
} from '../../src/index.js';

describe('machine types', () => {
  it('stay mutually assignable with the contract types', () => {
    expectTypeOf<AskMachineAnswer>().toEqualTypeOf<AskUserQuestionAnswer>();
    expectTypeOf<AskMachineAnsweredBy>().toEqualTypeOf<AnsweredBy>();
    expectTypeOf<AskMachineOutcome>().toMatchTypeOf<AskOutcome>();
    expectTypeOf<AskOutcome>().toMatchTypeOf<AskMachineOutcome>();
    expectTypeOf<AskMachineQuorumResponse>().toEqualTypeOf<QuorumResponse>();
  });
});
