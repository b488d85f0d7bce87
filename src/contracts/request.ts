/** The normalized request a provider receives. */

import type { AskUserQuestion } from './question.js';
import type { AskUserHints } from './tool-input.js';

/**
 * What a provider is asked to show: the normalized questions (one, or a wizard of up to four)
 * with every default resolved, the asking agent and the caller's presentation hints.
 */
export interface AskUserRequest {
  /** The questions in the order to ask them; answers refer to their `id`s. */
  questions: AskUserQuestion[];
  /** The name of the agent asking, as the caller set it (never the model). */
  agent?: string;
  /** Presentation hints from the caller; a provider's local preferences win over them. */
  hints?: AskUserHints;
}
