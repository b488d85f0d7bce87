/** The PostgreSQL store against the shared store contract, each test on a schema of its own. */
import { createPostgresAskStore } from 'ask-engine/postgres';
import { afterAll, beforeAll, describe } from 'vitest';
import {
  type PostgresCluster,
  postgresMissing,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { describeAskStoreContract } from './store-contract.js';

let cluster: PostgresCluster;
let schemas = 0;

describe.skipIf(postgresMissing !== undefined)(
  `PostgreSQL${postgresMissing ? ` (skipped: ${postgresMissing})` : ''}`,
  () => {
    beforeAll(async () => {
      cluster = await startPostgresCluster();
    });
    afterAll(async () => {
      await cluster?.destroy();
    });

    const storeOn = (schema: string) =>
      createPostgresAskStore({ connectionString: cluster.url }, { schema, max: 3 });

    describeAskStoreContract('the PostgreSQL store', {
      create: async () => storeOn(`contract_${++schemas}`),
      connect: async () => storeOn(`contract_${schemas}`),
      endsClaimsEarly: false,
    });
  },
);
