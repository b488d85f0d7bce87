/** The normalized request a provider receives. */

import type { AskUserQuestion } from './question.js';
import type { AskUserHints } from './tool-input.js';

export interface AskUserRequest {
  questions: AskUserQuestion[];
  agent?: string;
  /** Presentation hints from the caller; a provider's local preferences win over them. */
  hints?: AskUserHints;
}
