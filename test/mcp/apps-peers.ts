/**
 * An `ask_user` MCP server and a v2 client that declares MCP Apps (and no elicitation), linked
 * in memory: the client is what a chat host holds; the tests mount the form it reads.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/client';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { type AskStore, createInteractionService, createMemoryAskStore } from 'ask-engine';
import { createAskUserMcpServer } from 'ask-engine/mcp';
import type { Negotiation } from './mrtr-peers.js';

/** What a host that renders MCP Apps declares. */
export const APPS_CAPABILITIES = {
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } },
};

/** A server on `store` (a new memory store by default) and an Apps host's client of it. */
export async function connectAppsHost(
  options: {
    store?: AskStore;
    secret?: Uint8Array;
    capabilities?: Record<string, unknown>;
    /** The protocol era: 2025 (`legacy`, the default) or pinned to 2026-07-28. */
    negotiation?: Negotiation;
    /** The server's clock (the form's tokens); the service keeps the system clock. */
    clock?: { now(): number };
  } = {},
) {
  const service = createInteractionService({ store: options.store ?? createMemoryAskStore() });
  const server = createAskUserMcpServer({
    service,
    secret: options.secret ?? randomBytes(32),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = server.connect(serverSide);
  const client = new Client(
    { name: 'apps-host', version: '1.0.0' },
    {
      capabilities: options.capabilities ?? APPS_CAPABILITIES,
      versionNegotiation: { mode: options.negotiation ?? 'legacy' },
    },
  );
  await client.connect(clientSide);
  return {
    service,
    client,
    async close() {
      await client.close();
      await handle.close();
      await service.close();
    },
  };
}
