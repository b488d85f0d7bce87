/**
 * Streamable HTTP with two `ask_user` servers behind a round-robin proxy: a 2026-07-28 client's
 * retry lands on the other server, which settles the ask through the shared store, exactly
 * once. Two services on one memory store in this process; two processes on one SQLite file and
 * on one PostgreSQL schema.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import {
  type AskStore,
  createInteractionService,
  createMemoryAskStore,
  type InteractionService,
} from 'ask-engine';
import { createAskUserMcpServer } from 'ask-engine/mcp';
import { createPostgresAskStore } from 'ask-engine/postgres';
import { createSqliteAskStore } from 'ask-engine/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresMissing, startPostgresCluster } from '../support/postgres-cluster.js';
import { bundleProgram } from '../support/program-bundle.js';
import { serveFetch, startRoundRobin } from './http-fetch.js';
import { type CallResult, historyOf, type InputRequired, onlyAsk, textOf } from './mrtr-peers.js';

const deploy = { question: 'Deploy the release now?', options: ['Yes', 'No'] };

/**
 * A manual 2026-07-28 client through `proxy`: the first call lands on `a`, its retry on `b`
 * (answered), the same retry again on `a` (late). `reader` reads the shared store.
 */
async function retryOnTheOtherServer(proxy: URL, reader: InteractionService) {
  const client = new Client(
    { name: 'ide', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: 'auto' },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(proxy));
  try {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const first = (await client.callTool(
      { name: 'ask_user', arguments: deploy },
      { allowInputRequired: true },
    )) as unknown as InputRequired;
    expect(first.resultType).toBe('input_required');
    const retry = async (selection: string) =>
      (await client.callTool(
        {
          name: 'ask_user',
          arguments: deploy,
          inputResponses: {
            ask_user: { action: 'accept', content: { 'q1.selection': selection } },
          },
          requestState: first.requestState,
        } as Parameters<Client['callTool']>[0],
        { allowInputRequired: true },
      )) as unknown as CallResult;
    const answered = await retry('option1');
    const again = await retry('option2');

    expect(textOf(answered)).toContain('Selected: "Yes"');
    expect(textOf(again)).toBe(textOf(answered));
    const { askId } = await onlyAsk(reader);
    expect(await reader.outcome(askId)).toMatchObject({
      status: 'answered',
      answeredBy: { recipient: 'ide', channel: 'mcp' },
    });
    const events = await historyOf(reader, askId);
    expect(events.map((event) => event.type)).toEqual([
      'start',
      'provider.deferred',
      'answer',
      'late-answer',
    ]);
  } finally {
    await client.close();
  }
}

describe('two services on one memory store, behind a round-robin proxy', () => {
  it('settles the ask once on the server the retry reached', async () => {
    const store = createMemoryAskStore();
    const secret = randomBytes(32);
    const servers = ['a', 'b'].map(() =>
      createAskUserMcpServer({ service: createInteractionService({ store }), secret }),
    );
    const listening = await Promise.all(
      servers.map(async (server) => {
        const http = createServer(serveFetch(createMcpHandler(server.createServer).fetch));
        await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
        const { port } = http.address() as AddressInfo;
        return { http, url: new URL(`http://127.0.0.1:${port}/mcp`) };
      }),
    );
    const proxy = await startRoundRobin({ a: listening[0]!.url, b: listening[1]!.url });
    const reader = createInteractionService({ store });
    try {
      await retryOnTheOtherServer(proxy.url, reader);
      expect(proxy.toolCalls).toEqual(['a', 'b', 'a']);
    } finally {
      await proxy.close();
      for (const { http } of listening) http.close();
      await Promise.all([reader, ...servers.map((server) => server.service)].map((s) => s.close()));
    }
  });
});

describe('one Streamable HTTP endpoint for both eras (createHttpEndpoint)', () => {
  it('asks a 2025 client on its session, and clients in auto negotiation and pinned to 2026-07-28', async () => {
    const server = createAskUserMcpServer();
    const endpoint = server.createHttpEndpoint();
    const http = createServer(serveFetch(endpoint.fetch));
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    const { port } = http.address() as AddressInfo;
    const seen = [];
    try {
      for (const mode of ['legacy', 'auto', { pin: '2026-07-28' }] as const) {
        const client = new Client(
          { name: 'ide', version: '1.0.0' },
          { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
        );
        let shown = 0;
        client.setRequestHandler('elicitation/create', () => {
          shown++;
          return { action: 'accept', content: { 'q1.selection': 'option2' } };
        });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
        );
        const result = (await client.callTool({
          name: 'ask_user',
          arguments: deploy,
        })) as CallResult;
        seen.push({
          version: client.getNegotiatedProtocolVersion(),
          shown,
          text: textOf(result),
        });
        await client.close();
      }
    } finally {
      await endpoint.close();
      http.close();
      await server.service.close();
    }
    const text = 'The user answered.\n\nQ1: Deploy the release now?\nSelected: "No"';
    expect(seen).toEqual([
      { version: '2025-11-25', shown: 1, text },
      { version: '2026-07-28', shown: 1, text },
      { version: '2026-07-28', shown: 1, text },
    ]);
  });
});

describe('a 2025-era client on a stateless Streamable HTTP endpoint (createMcpHandler)', () => {
  it('is told at once that stateless HTTP cannot carry its elicitation, not left waiting', async () => {
    const server = createAskUserMcpServer();
    const http = createServer(serveFetch(createMcpHandler(server.createServer).fetch));
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    const { port } = http.address() as AddressInfo;
    const client = new Client(
      { name: 'ide', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const shown: unknown[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      shown.push(request);
      return { action: 'accept', content: { 'q1.selection': 'option1' } };
    });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
      );
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const result = (await client.callTool({
        name: 'ask_user',
        arguments: deploy,
      })) as CallResult;

      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(
        'This 2025-era MCP client reached the server over stateless HTTP',
      );
      expect(shown).toEqual([]);
    } finally {
      await client.close();
      http.close();
      await server.service.close();
    }
  });
});

/** Starts the host process; resolves with its URL once it listens. */
async function startHost(where: string, schema: string, secret: string) {
  const main = await bundleProgram('test/mcp/fixtures/http-host.ts');
  const child = spawn(process.execPath, [main, where, schema, secret], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the host exited with ${code}`)));
  });
  const { port } = JSON.parse(line) as { port: number };
  return { child, url: new URL(`http://127.0.0.1:${port}/mcp`) };
}

async function acrossProcesses(where: string, schema: string, store: AskStore) {
  const reader = createInteractionService({ store });
  // The schema is made (and migrated) before the hosts open it.
  await reader.list();
  const secret = randomBytes(32).toString('hex');
  const hosts: ChildProcess[] = [];
  try {
    const [a, b] = await Promise.all([
      startHost(where, schema, secret),
      startHost(where, schema, secret),
    ]);
    hosts.push(a.child, b.child);
    const proxy = await startRoundRobin({ a: a.url, b: b.url });
    try {
      await retryOnTheOtherServer(proxy.url, reader);
      expect(proxy.toolCalls).toEqual(['a', 'b', 'a']);
    } finally {
      await proxy.close();
    }
  } finally {
    await Promise.all(
      hosts.map(
        (child) =>
          new Promise<void>((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      ),
    );
    await reader.close();
  }
}

describe('two processes on one SQLite file, behind a round-robin proxy', () => {
  it('settles the ask once on the process the retry reached', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ask-engine-mcp-'));
    const file = join(dir, 'asks.db');
    try {
      await acrossProcesses(file, '-', createSqliteAskStore({ path: file }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(postgresMissing !== undefined)(
  'two processes on one PostgreSQL schema, behind a round-robin proxy',
  () => {
    let cluster: Awaited<ReturnType<typeof startPostgresCluster>>;
    beforeAll(async () => {
      cluster = await startPostgresCluster();
    }, 60_000);
    afterAll(async () => {
      await cluster?.destroy();
    });

    it('settles the ask once on the process the retry reached', async () => {
      const schema = 'mcp_round_robin';
      await acrossProcesses(
        cluster.url,
        schema,
        createPostgresAskStore({ connectionString: cluster.url }, { schema, max: 2 }),
      );
    }, 60_000);
  },
);
