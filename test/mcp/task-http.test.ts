/**
 * Tasks over Streamable HTTP on two `ask_user` servers that share one store (two services on
 * one memory store, each behind the SDK's `createMcpHandler` on loopback): a task created on
 * one is polled, answered and read on either, as a load balancer would spread the requests.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { createInteractionService, createMemoryAskStore } from 'ask-engine';
import { createAskUserMcpServer } from 'ask-engine/mcp';
import { describe, expect, it } from 'vitest';
import { serveFetch } from './http-fetch.js';
import { taskClient } from './task-peers.js';

describe('a task on two servers that share a store, over Streamable HTTP', () => {
  it('is created on one, answered through the other, and completed on both', async () => {
    const store = createMemoryAskStore();
    const servers = ['a', 'b'].map(() =>
      createAskUserMcpServer({ service: createInteractionService({ store }) }),
    );
    const listening: { http: Server; url: URL }[] = [];
    for (const server of servers) {
      const http = createServer(serveFetch(createMcpHandler(server.createServer).fetch));
      await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
      const { port } = http.address() as AddressInfo;
      listening.push({ http, url: new URL(`http://127.0.0.1:${port}/mcp`) });
    }
    const [onA, onB] = await Promise.all(
      listening.map(({ url }) =>
        taskClient(new StreamableHTTPClientTransport(url), { clientName: 'ide' }),
      ),
    );
    try {
      const created = await onA!.callAskUser({
        question: 'Deploy the release now?',
        options: ['Yes', 'No'],
      });
      expect(created).toMatchObject({ resultType: 'task', status: 'input_required' });
      const taskId = created.taskId as string;
      expect((await onB!.get(taskId)).status).toBe('input_required');
      await onB!.update(taskId, {
        ask_user: { action: 'accept', content: { 'q1.selection': 'option2' } },
      });
      for (const each of [onA!, onB!]) {
        expect(await each.get(taskId)).toMatchObject({
          status: 'completed',
          result: { content: [{ type: 'text', text: expect.stringContaining('Selected: "No"') }] },
        });
      }
      const [ask] = (await servers[0]!.service.list()).items;
      expect(ask?.outcome).toMatchObject({
        status: 'answered',
        answeredBy: { recipient: 'ide', channel: 'mcp' },
      });
    } finally {
      await Promise.all([onA?.close(), onB?.close()]);
      for (const { http } of listening) http.close();
      await Promise.all(servers.map((server) => server.service.close()));
    }
  });
});
