/**
 * A resolved `close()` means nothing of that service writes again (issue 37, §9): on
 * PostgreSQL, a service closed while a storm of its deadlines is being written, and then its
 * store, write nothing after both have resolved, whether the store owns its client or was given
 * one.
 */
import { createInteractionService } from 'ask-engine';
import { createPostgresAskStore } from 'ask-engine/postgres';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';

const ASKS = 2_000;

describe.skipIf(postgresMissing !== undefined)(
  `a service closed on PostgreSQL${postgresMissing ? ` (skipped: ${postgresMissing})` : ''}`,
  () => {
    let cluster: PostgresCluster;
    let admin: postgres.Sql;
    beforeAll(async () => {
      cluster = await startPostgresCluster();
      admin = postgres(cluster.url, { max: 1, onnotice: () => undefined });
    });
    afterAll(async () => {
      await admin?.end();
      await cluster?.destroy();
    });

    /** Writes of any kind to the schema so far: rows' versions and events. */
    const writesIn = async (schema: string) => {
      const [row] = await admin.unsafe(
        `select (select coalesce(sum(version), 0) from ${schema}.asks)::int
          + (select count(*) from ${schema}.ask_events)::int as n`,
      );
      return Number(row?.n);
    };

    for (const client of ['its own client', 'a client it was given'] as const) {
      it(`writes nothing once service.close() and store.close() resolved, with ${client}`, async () => {
        const schema = `closing_${client === 'its own client' ? 'own' : 'given'}`;
        const given =
          client === 'its own client'
            ? undefined
            : postgres(cluster.url, { max: 4, fetch_types: false, onnotice: () => undefined });
        const store = createPostgresAskStore(
          given === undefined ? { connectionString: cluster.url } : { sql: given },
          { schema, max: 4 },
        );
        const clock = new SimulatedClock();
        clock.set(Date.now());
        const service = createInteractionService({
          store,
          clock,
          sweepIntervalMs: Number.POSITIVE_INFINITY,
        });
        service.registerProvider({ ask: () => new Promise(() => undefined) });
        const handles = Array.from({ length: ASKS }, (_, n) =>
          service.start({ question: `Ask ${n}?` }, { timeoutMs: 1_000 }),
        );
        for (const handle of handles) handle.outcome.catch(() => undefined);
        await Promise.all(handles.map((handle) => handle.stored));
        // Every deadline comes due at once: the service writes a storm of timeouts.
        clock.increment(1_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
        await service.close();
        await store.close();
        const closed = await writesIn(schema);
        const later: number[] = [];
        for (let n = 0; n < 5; n++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          later.push((await writesIn(schema)) - closed);
        }
        expect(later).toEqual([0, 0, 0, 0, 0]);
        await given?.end();
      }, 60_000);
    }
  },
);
