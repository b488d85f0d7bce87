/**
 * (c) Normalization + answer validation of a maximal request (4 questions x 64 options),
 * against JSON.parse of the same payload. Goal <= 3x.
 */
import { normalizeAskUserRequest } from '../src/rules/normalize.js';
import { validateAskUserAnswers } from '../src/rules/validate-answers.js';
import { maximalAnswers, maximalRequest } from './fixtures.js';
import { timeRatio } from './ratio.js';

const payload = JSON.stringify(maximalRequest);

await timeRatio(
  '(c) normalize + validate a 4x64 request vs JSON.parse of it',
  3,
  () => JSON.parse(payload),
  () => {
    const normalized = normalizeAskUserRequest(maximalRequest);
    if (!normalized.ok) throw normalized.error;
    return validateAskUserAnswers(normalized.value.questions, maximalAnswers);
  },
);
