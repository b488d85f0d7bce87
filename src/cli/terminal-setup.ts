/** Builds the service + terminal provider + ask_user tool the CLI commands ask through. */
import { createInteractionService } from '../engine/service.js';
import type { AskStore } from '../stores/ask-store.js';
import { openInteractiveTerminal } from '../terminal/controlling-terminal.js';
import type { TerminalPreferenceInput } from '../terminal/preferences.js';
import { createTerminalProvider } from '../terminal/terminal-provider.js';
import { type AskUserTool, createAskUserTool } from '../tool/tool.js';

export interface CliAsking {
  service: ReturnType<typeof createInteractionService>;
  tool: AskUserTool;
  /** Whether a person can be asked at all (a controlling terminal exists). */
  interactive: boolean;
  /** Waits until the terminal UI has closed and the terminal is restored, then releases it. */
  close(): Promise<void>;
}

/**
 * Opens the controlling terminal when there is one; without it the provider answers every ask
 * `cancelled` / `unavailable`, which the commands report as they would any outcome.
 *
 * @example
 * const asking = setUpAsking(preferences, { agent: 'demo-agent' });
 */
export function setUpAsking(
  preferences: TerminalPreferenceInput,
  toolOptions: { agent?: string } = {},
  store?: AskStore,
): CliAsking {
  const streams = openInteractiveTerminal();
  const provider = createTerminalProvider({
    preferences,
    ...(streams === undefined ? {} : { input: streams.input, output: streams.output }),
  });
  const service = createInteractionService(store === undefined ? {} : { store });
  const unregister = service.registerProvider(provider);
  return {
    service,
    tool: createAskUserTool(service, toolOptions),
    interactive: streams !== undefined,
    async close() {
      await provider.whenIdle();
      unregister();
      streams?.close();
    },
  };
}
