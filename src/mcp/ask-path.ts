/**
 * Which way one `ask_user` call reaches the person: the one place a client's path is chosen,
 * from the era it speaks and the capabilities it declared on this call.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  PROTOCOL_VERSION_META_KEY,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { servesAppForm } from './apps-form.js';
import { type ElicitationModes, elicitationModes } from './elicitation-rules.js';

/** What the server knows of the client behind one `tools/call`. */
export interface AskUserCall {
  /** `legacy`: the 2025 era (`initialize`); `modern`: 2026-07-28 and later (per-request envelope). */
  era: 'legacy' | 'modern';
  /** The client's capabilities: this request's envelope (modern), or from `initialize` (legacy). */
  capabilities: ClientCapabilities | undefined;
  /** The name the client gave (`clientInfo.name`), the same way. */
  clientName: string | undefined;
  /** The `requestState` the client echoed (modern retries only): untrusted until opened. */
  requestState: string | undefined;
  /** Whether the request came over HTTP. */
  overHttp: boolean;
}

/**
 * How the call is served:
 * - `elicitation`: 2025 era, `elicitation/create` sent while the call stays open (the
 *   elicitation provider, which also answers `unavailable` to a client that cannot be asked);
 * - `input-required`: 2026-07-28 era, multi round-trip: the call returns `input_required` with a
 *   form (or a link to the answer page) and a sealed `requestState`; `retry` is the state the
 *   client echoed when this call is the retry;
 * - `unavailable`: nobody can be asked through this client; `message` says why;
 * - `app`: either era, a host that renders MCP Apps and declares no elicitation: the ask is
 *   deferred to the `ui://` form (`apps-form.ts`), which answers through `ask_user_answer`.
 */
export type AskPath =
  | { kind: 'app' }
  | { kind: 'elicitation' }
  | { kind: 'input-required'; modes: ElicitationModes; retry: string | undefined }
  | { kind: 'unavailable'; message: string };

const STATELESS_LEGACY =
  'This 2025-era MCP client reached the server over stateless HTTP, where the server cannot send it elicitation/create and hear the reply. Use a client that negotiates 2026-07-28, stdio, or a session (the SDK’s Streamable HTTP transport with a session id generator) for 2025-era clients.';

/** Reads the call's era, capabilities, client name and echoed state. */
export function readAskUserCall(server: Server, ctx: ServerContext): AskUserCall {
  // The SDK checked the envelope against its schema on dispatch; its published type is `{}`.
  const envelope = ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  if (envelope?.[PROTOCOL_VERSION_META_KEY] !== undefined) {
    const state = ctx.mcpReq.requestState();
    const info = envelope[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined;
    return {
      era: 'modern',
      capabilities: envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined,
      clientName: typeof info?.name === 'string' ? info.name : undefined,
      requestState: typeof state === 'string' ? state : undefined,
      overHttp: ctx.http?.req !== undefined,
    };
  }
  return {
    era: 'legacy',
    capabilities: server.getClientCapabilities(),
    clientName: server.getClientVersion()?.name,
    requestState: undefined,
    overHttp: ctx.http?.req !== undefined,
  };
}

/**
 * Chooses the path for `call`. `answerPage` says whether a link to the answer page can be made
 * (the server's `urlFor`), which a URL-only client needs.
 */
export function chooseAskPath(call: AskUserCall, answerPage: { available: boolean }): AskPath {
  if (servesAppForm(call.capabilities)) return { kind: 'app' };
  if (call.era === 'legacy') {
    // An instance that never saw `initialize` serves one request of stateless HTTP (the SDK's
    // `createMcpHandler` fallback): it can send no request to the client and hear the reply.
    if (call.capabilities === undefined && call.overHttp) {
      return { kind: 'unavailable', message: STATELESS_LEGACY };
    }
    return { kind: 'elicitation' };
  }
  const modes = elicitationModes(call.capabilities);
  if (call.requestState !== undefined) {
    return { kind: 'input-required', modes, retry: call.requestState };
  }
  if (modes.form || (modes.url && answerPage.available)) {
    return { kind: 'input-required', modes, retry: undefined };
  }
  return {
    kind: 'unavailable',
    message: modes.url
      ? 'The MCP client supports only URL elicitation and no answer page link is available (createAskUserMcpServer option urlFor).'
      : 'The MCP client did not declare the elicitation capability on this request, so it cannot ask its user.',
  };
}
