import { describe, expect, it } from 'vitest';
import { buildAskUserForm, readAskUserForm, type UiForm } from '../../src/data.js';
import { open, question, tags } from './questions.js';

const questions = [open, tags];
const form = buildAskUserForm(questions);

function edited(edit: (copy: UiForm) => void): UiForm {
  const copy = structuredClone(form);
  edit(copy);
  return copy;
}

describe('readAskUserForm', () => {
  it('gives back the questions of a form it built, also after a JSON round trip', () => {
    expect(readAskUserForm(form)).toEqual(questions);
    expect(readAskUserForm(JSON.parse(JSON.stringify(form)))).toEqual(questions);
  });

  it('accepts relabelled fields: wording is the host’s, structure is not', () => {
    expect(
      readAskUserForm(
        edited((copy) => {
          copy.fields[0]!.label = 'Réponse';
        }),
      ),
    ).toEqual(questions);
  });

  it('hands out a copy, so editing it changes neither the form nor the next read', () => {
    const first = readAskUserForm(form)!;
    first[0]!.options.push({ title: 'Injected' });
    expect(readAskUserForm(form)).toEqual(questions);
  });

  it.each<[string, (copy: UiForm) => void]>([
    [
      'no hint',
      (copy) => {
        delete copy.hint;
      },
    ],
    [
      'an unknown hint id',
      (copy) => {
        copy.hint!.id = 'other.form';
      },
    ],
    [
      'hint version 1',
      (copy) => {
        copy.hint!.version = '1';
      },
    ],
    [
      'hint data without questions',
      (copy) => {
        copy.hint!.data = { question: [] };
      },
    ],
    [
      'hint data that is not an object',
      (copy) => {
        copy.hint!.data = 'questions';
      },
    ],
    [
      'invalid questions',
      (copy) => {
        (copy.hint!.data as { questions: unknown[] }).questions[0] = { id: 'q1' };
      },
    ],
    [
      'too many questions',
      (copy) => {
        (copy.hint!.data as { questions: unknown[] }).questions = ['a', 'b', 'c', 'd', 'e'].map(
          (id) => question(id),
        );
      },
    ],
    [
      'a missing field',
      (copy) => {
        copy.fields.pop();
      },
    ],
    [
      'an extra field',
      (copy) => {
        copy.fields.push({
          id: 'q3.text',
          type: 'text',
          label: 'x',
          multiline: true,
          maxBytes: 10,
        });
      },
    ],
    [
      'a renamed field',
      (copy) => {
        copy.fields[0]!.id = 'q1.kind';
      },
    ],
    [
      'a field of another type',
      (copy) => {
        (copy.fields[1] as { type: string }).type = 'multi-choice';
      },
    ],
    [
      'an option id that differs',
      (copy) => {
        (copy.fields[1] as { options: { id: string }[] }).options[0]!.id = 'yes';
      },
    ],
    [
      'an option too many',
      (copy) => {
        (copy.fields[1] as { options: { id: string; label: string }[] }).options.push({
          id: 'option3',
          label: 'x',
        });
      },
    ],
    [
      'another maxSelections',
      (copy) => {
        (
          copy.fields.find((f) => f.type === 'multi-choice') as { maxSelections: number }
        ).maxSelections = 1;
      },
    ],
    [
      'another maxBytes',
      (copy) => {
        (copy.fields[2] as { maxBytes: number }).maxBytes = 1e9;
      },
    ],
    [
      'no cancel action',
      (copy) => {
        copy.actions.pop();
      },
    ],
    [
      'no submit action',
      (copy) => {
        copy.actions.shift();
      },
    ],
    [
      'a cancel action of kind submit',
      (copy) => {
        copy.actions[1]!.kind = 'submit';
      },
    ],
    [
      'an extra action',
      (copy) => {
        copy.actions.push({ id: 'later', kind: 'submit', label: 'Later' });
      },
    ],
  ])('returns null for %s', (_name, edit) => {
    expect(readAskUserForm(edited(edit))).toBeNull();
  });

  it('returns null, not a throw, for hint data over the size limit', () => {
    const big = edited((copy) => {
      (copy.hint!.data as { questions: { context?: string }[] }).questions[0]!.context = 'x'.repeat(
        140_000,
      );
    });
    expect(readAskUserForm(big)).toBeNull();
  });
});
