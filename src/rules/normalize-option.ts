/** Turns one option as a model or a caller wrote it into a normalized `{ title, description? }`. */
import type { AskUserOption } from '../contracts/question.js';
import { describe } from './describe.js';
import { UserInteractionError } from './errors.js';
import { hasVisibleCharacter } from './question-rules.js';

/**
 * The keys an option object may carry its title under, in order of preference: models write
 * `label` or `text` as often as `title`, and `value`/`name`/`option` when they think in ids.
 */
export const OPTION_TITLE_KEYS = ['title', 'label', 'text', 'value', 'name', 'option'] as const;

/**
 * Accepts a string, a finite number, a boolean, or an object with the title under one of
 * `title`, `label`, `text`, `value`, `name`, `option` (plus an optional string `description`),
 * and returns the trimmed option. Throws `UserInteractionError('INVALID_REQUEST')` naming what
 * was wrong and the value received; nothing is guessed and nothing is shortened.
 *
 * @example
 * normalizeAskUserOption(' Postgres ');                        // { title: 'Postgres' }
 * normalizeAskUserOption({ label: 'Yes', description: 'Ship' }); // { title: 'Yes', description: 'Ship' }
 */
export function normalizeAskUserOption(input: unknown): AskUserOption {
  if (typeof input !== 'object' || input === null) {
    return { title: titleFrom(input, 'the option') };
  }
  if (Array.isArray(input)) {
    throw invalidOption(
      `an option must be a string or an object { title, description? }, got ${describe(input)}.`,
      input,
    );
  }
  const record = input as Record<string, unknown>;
  let titleKey: string | undefined;
  // Only the first title key present counts: the others (say `value` next to `label`) are
  // alternative spellings a model adds for the same choice, not text the person would see.
  for (const key of OPTION_TITLE_KEYS) {
    if (Object.hasOwn(record, key)) {
      titleKey = key;
      break;
    }
  }
  if (titleKey === undefined) {
    throw invalidOption(
      `an option object needs a "title" (or "label", "text", "value", "name", "option"), got an object with ${describeKeys(record)}.`,
      input,
    );
  }
  for (const key of Object.keys(record)) {
    if (key !== 'description' && !(OPTION_TITLE_KEYS as readonly string[]).includes(key)) {
      throw invalidOption(
        `an option has unknown field ${JSON.stringify(key)}; an option is { title, description? }.`,
        input,
      );
    }
  }
  const title = titleFrom(record[titleKey], `the option's "${titleKey}"`);
  const description = record.description;
  // `null` is how JSON writers say "no description"; treating it as absent loses nothing.
  if (description === undefined || description === null) return { title };
  if (typeof description !== 'string') {
    throw invalidOption(
      `the option "${title}" has a description that is not a string, got ${describe(description)}.`,
      input,
    );
  }
  const trimmed = description.trim();
  // A description that shows nothing is no description, like a blank one.
  return hasVisibleCharacter(trimmed) ? { title, description: trimmed } : { title };
}

function titleFrom(value: unknown, what: string): string {
  switch (typeof value) {
    case 'string': {
      const title = value.trim();
      if (title === '') {
        throw invalidOption(`${what} is empty; an option needs a title to show.`, value);
      }
      if (!hasVisibleCharacter(title)) {
        throw invalidOption(
          `${what} is ${describe(title)}, which shows nothing (only invisible characters); an option needs a title people can read.`,
          value,
        );
      }
      return title;
    }
    case 'number':
      if (!Number.isFinite(value)) {
        throw invalidOption(`${what} is ${value}, which is not a finite number.`, value);
      }
      return String(value);
    case 'boolean':
      return String(value);
    default:
      throw invalidOption(
        `${what} must be a string, a number or a boolean, got ${describe(value)}.`,
        value,
      );
  }
}

function describeKeys(record: Record<string, unknown>): string {
  const keys = Object.keys(record);
  if (keys.length === 0) return 'no fields';
  const shown = keys.slice(0, 5).map((key) => JSON.stringify(key));
  return `fields ${shown.join(', ')}${keys.length > 5 ? ', …' : ''}`;
}

// `data.reason` keeps the sentence uncapitalized so the request normalizer can say which
// entry it was ("Option 2 of question 1 is unusable: <reason>").
function invalidOption(reason: string, received: unknown): UserInteractionError {
  return new UserInteractionError('INVALID_REQUEST', capitalize(reason), {
    reason,
    received: describe(received),
  });
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
