/** The machine keeps structural copies of the contract types (it imports nothing from src/). */
import type { Static } from '@sinclair/typebox';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AskMachineAnswer,
  AskMachineAnsweredBy,
  AskMachineContext,
  AskMachineOutcome,
  AskMachineQuorumResponse,
} from '../../machines/ask.machine.js';
import type { StoredAskSchema, StoredContextSchema } from '../../src/engine/stored-ask-check.js';
import type {
  AnsweredBy,
  AskOutcome,
  AskUserQuestionAnswer,
  QuorumResponse,
} from '../../src/index.js';
import type { UnlistedField } from '../../src/stores/ask-row.js';
import type { ListedAsk, StoredAsk } from '../../src/stores/ask-store.js';

describe('machine types', () => {
  it('stay mutually assignable with the contract types', () => {
    expectTypeOf<AskMachineAnswer>().toEqualTypeOf<AskUserQuestionAnswer>();
    expectTypeOf<AskMachineAnsweredBy>().toEqualTypeOf<AnsweredBy>();
    expectTypeOf<AskMachineOutcome>().toMatchTypeOf<AskOutcome>();
    expectTypeOf<AskOutcome>().toMatchTypeOf<AskMachineOutcome>();
    expectTypeOf<AskMachineQuorumResponse>().toEqualTypeOf<QuorumResponse>();
  });
});

describe('stored types', () => {
  it('are what the stored-row check describes, field for field', () => {
    expectTypeOf<Static<typeof StoredContextSchema>>().toEqualTypeOf<AskMachineContext>();
    expectTypeOf<Omit<Static<typeof StoredAskSchema>, 'snapshot'>>().toEqualTypeOf<
      Omit<StoredAsk, 'snapshot'>
    >();
  });

  it('leave out of a listed row exactly what the row description marks unlisted', () => {
    expectTypeOf<UnlistedField>().toEqualTypeOf<Exclude<keyof StoredAsk, keyof ListedAsk>>();
  });
});
