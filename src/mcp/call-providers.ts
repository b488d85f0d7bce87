/**
 * The one provider of an MCP server's service, handing each ask to the provider of the
 * `tools/call` that asked (found by the tool call id), so every connection and era of the
 * server shares one service.
 */
import type { ProviderOutcome } from '../contracts/outcome.js';
import type { AskProvider } from '../engine/provider.js';

/** Providers by tool call id, while their call runs. */
export interface CallProviders {
  /** The provider to register with the service. */
  readonly provider: AskProvider;
  /** Runs `work` with `provider` answering the asks of `toolCallId`. */
  during<T>(toolCallId: string, provider: AskProvider, work: () => Promise<T>): Promise<T>;
}

/** Creates the registry; an ask of no running call (one another process left) is `unavailable`. */
export function createCallProviders(): CallProviders {
  const byCall = new Map<string, AskProvider>();
  return {
    provider: {
      ask(request, ctx) {
        const own = ctx.toolCallId === undefined ? undefined : byCall.get(ctx.toolCallId);
        if (own === undefined) {
          return Promise.resolve(
            unavailable(
              'The MCP tool call that asked is not running on this server (its client is connected elsewhere, or gone).',
            ),
          );
        }
        return own.ask(request, ctx);
      },
    },
    async during(toolCallId, provider, work) {
      byCall.set(toolCallId, provider);
      try {
        return await work();
      } finally {
        byCall.delete(toolCallId);
      }
    },
  };
}

/** A provider that answers every ask `cancelled` / `unavailable` with `message`. */
export function unavailableProvider(message: string): AskProvider {
  return { ask: () => Promise.resolve(unavailable(message)) };
}

function unavailable(message: string): ProviderOutcome {
  return { status: 'cancelled', reason: 'unavailable', message };
}
