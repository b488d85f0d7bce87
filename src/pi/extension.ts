/** The pi coding-agent extension: registers ask_user, asking in pi's terminal UI. */
import type {
  AgentToolResult,
  ExtensionAPI,
  ExtensionContext,
  ToolDefinition,
} from '@mariozechner/pi-coding-agent';
import { Text } from '@mariozechner/pi-tui';
import { createInteractionService } from '../engine/service.js';
import type { InteractionService } from '../engine/service-contract.js';
import { getSettingsPath, loadTerminalSettings, toLiteralText } from '../terminal/index.js';
import { type AskUserToolOptions, createAskUserTool } from '../tool/tool.js';
import type { AskUserToolDetails, AskUserToolProgressDetails } from '../tool/tool-result.js';
import { createPiProvider } from './pi-provider.js';

/** Options of `createAskEngineExtension`: the ask_user tool's options plus the service to use. */
export interface AskEngineExtensionOptions extends AskUserToolOptions {
  /** The service to ask through; the extension registers its pi provider on it. Default: a new one. */
  service?: InteractionService;
}

type Details = AskUserToolDetails | AskUserToolProgressDetails;

/**
 * Builds the extension factory pi calls with its `ExtensionAPI`. The default export of
 * `ask-engine/pi` is `createAskEngineExtension()`.
 *
 * @example
 * // ~/.pi/agent/extensions/ask.ts
 * import { createAskEngineExtension } from 'ask-engine/pi';
 * export default createAskEngineExtension({ timeoutMs: 10 * 60_000 });
 */
export function createAskEngineExtension(
  options: AskEngineExtensionOptions = {},
): (pi: ExtensionAPI) => void {
  const { service: given, ...toolOptions } = options;
  return (pi) => {
    const service = given ?? createInteractionService();
    // The pi context of each running ask_user call, for the provider to show the ask in.
    const contexts = new Map<string, ExtensionContext>();
    const dispose = service.registerProvider(
      createPiProvider(
        (toolCallId) => (toolCallId === undefined ? undefined : contexts.get(toolCallId)),
        loadTerminalSettings(getSettingsPath()),
      ),
    );
    pi.registerTool(createPiAskUserTool(service, contexts, toolOptions));
    // pi loads the extension again on /reload and for each new session: this instance lets go
    // of the provider (the service takes one at a time) and ends what it started.
    pi.on('session_shutdown', async () => {
      dispose();
      if (given === undefined) {
        await service.drain(new Error('pi is shutting the session down.'));
        await service.close();
      }
    });
  };
}

function createPiAskUserTool(
  service: InteractionService,
  contexts: Map<string, ExtensionContext>,
  options: AskUserToolOptions,
): ToolDefinition<ReturnType<typeof createAskUserTool>['parameters'], Details> {
  const askUser = createAskUserTool(service, options);
  return {
    name: askUser.name,
    label: askUser.label,
    description: askUser.description,
    promptSnippet: askUser.promptSnippet,
    promptGuidelines: askUser.promptGuidelines,
    parameters: askUser.parameters,
    executionMode: askUser.executionMode,
    prepareArguments: askUser.prepareArguments,
    async execute(toolCallId, params, signal, onUpdate, ctx) {
      contexts.set(toolCallId, ctx);
      try {
        const result = await askUser.execute(toolCallId, params, signal ?? ctx.signal, onUpdate);
        // pi marks a tool result as an error when execute throws; the text says what happened.
        if (result.isError === true) throw new Error(result.content[0].text);
        return result satisfies AgentToolResult<Details>;
      } finally {
        contexts.delete(toolCallId);
      }
    },
    renderCall: (args, theme) =>
      new Text(
        `${theme.fg('toolTitle', theme.bold('ask_user'))} ${theme.fg('muted', summarize(args))}`,
        0,
        0,
      ),
    renderResult: (result, { isPartial }, theme) => {
      const text = result.content.find((part) => part.type === 'text')?.text ?? '';
      const status = result.details?.status;
      const color = isPartial ? 'warning' : status === 'answered' ? 'success' : 'muted';
      return new Text(theme.fg(color, toLiteralText(text)), 0, 0);
    },
  };
}

// The call as it streams in: arguments may still be partial, so read them defensively.
function summarize(args: unknown): string {
  const input = isRecord(args) ? args : {};
  const questions = Array.isArray(input.questions) ? input.questions.filter(isRecord) : [];
  if (questions.length > 1) {
    const headers = questions.map((entry, index) =>
      typeof entry.header === 'string' ? entry.header : `Q${index + 1}`,
    );
    return toLiteralText(`${questions.length} questions: ${headers.join(', ')}`);
  }
  const question = questions[0]?.question ?? input.question;
  return typeof question === 'string' ? toLiteralText(question) : '…';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
