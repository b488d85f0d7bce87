/** The options of the Claude adapter, checked up front with an error naming the value and the fix. */
import { isTimeoutMs, MIN_TIMEOUT_MS } from '../rules/timeout.js';
import type { ClaudeAskOptions } from './decide-tool-call.js';

export function checkClaudeAskOptions(options: ClaudeAskOptions): void {
  const { timeoutMs, inputSchemas, agent } = options;
  if (timeoutMs !== undefined && !isTimeoutMs(timeoutMs)) {
    throw new TypeError(
      `Expected \`timeoutMs\` to be a number of milliseconds, at least ${MIN_TIMEOUT_MS}, got ${String(timeoutMs)}.`,
    );
  }
  if (agent !== undefined && (typeof agent !== 'string' || agent === '')) {
    throw new TypeError(`Expected \`agent\` to be a non-empty string, got ${String(agent)}.`);
  }
  if (inputSchemas !== undefined) {
    for (const [toolName, schema] of Object.entries(inputSchemas)) {
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
        throw new TypeError(
          `Expected \`inputSchemas[${JSON.stringify(toolName)}]\` to be a JSON Schema object, got ${String(schema)}.`,
        );
      }
    }
  }
}
