/** Builds the service + terminal provider + ask_user tool the CLI commands ask through. */
import { createInteractionService } from '../engine/service.js';
import type { AskStore } from '../stores/ask-store.js';
import { openInteractiveTerminal } from '../terminal/controlling-terminal.js';
import type { TerminalPreferenceInput } from '../terminal/preferences.js';
import { type AskUserTool, createAskUserTool } from '../tool/tool.js';
import { importOptionalPackage } from './optional-package.js';

export interface CliAsking {
  service: ReturnType<typeof createInteractionService>;
  tool: AskUserTool;
  /** Whether a person can be asked at all (a controlling terminal exists). */
  interactive: boolean;
  /** Releases the terminal. The UI has already closed: an ask's outcome comes after its last frame. */
  close(): void;
}

/**
 * Opens the controlling terminal when there is one; without it the provider answers every ask
 * `cancelled` / `unavailable`, which the commands report as they would any outcome. The terminal
 * UI is loaded here, on demand: without its optional peer `@mariozechner/pi-tui` this throws a
 * `MissingPackage` naming it.
 *
 * @example
 * const asking = await setUpAsking(preferences, { agent: 'demo-agent' });
 */
export async function setUpAsking(
  preferences: TerminalPreferenceInput,
  toolOptions: { agent?: string } = {},
  store?: AskStore,
): Promise<CliAsking> {
  const { createTerminalProvider } = await importOptionalPackage(
    '@mariozechner/pi-tui',
    'the terminal UI',
    () => import('../terminal/terminal-provider.js'),
  );
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
    close() {
      unregister();
      streams?.close();
    },
  };
}
