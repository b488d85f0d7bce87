/**
 * A `--store` URL's password never reaches the terminal: a PostgreSQL store that cannot be
 * reached (port 1, where nothing listens) is one line naming the URL with its secrets masked,
 * whichever command opened it.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

// The user-info password percent-encoded (its decoded form must not show either), and a
// password in the query as libpq's connection URIs allow.
const url =
  'postgres://ana:pw-SECRET%40one@127.0.0.1:1/app?sslmode=disable&password=query-SECRET-two';
const secrets = ['pw-SECRET%40one', 'pw-SECRET@one', 'query-SECRET-two', 'SECRET'];

describe('a --store URL with a password, unreachable', () => {
  it.each([
    ['list'],
    ['show', 'ask-1'],
    ['export'],
    ['cancel', 'ask-1'],
    ['ask', '{"question":"Deploy?","options":["Yes","No"]}', '--defer'],
  ])('%s names the store with its password masked (exit 5)', async (...args) => {
    const result = await runCli([...args, '--store', url]);
    for (const secret of secrets) {
      expect(result.stdout).not.toContain(secret);
      expect(result.stderr).not.toContain(secret);
    }
    expect(result.stderr).toMatch(
      /^ask-engine: --store "postgres:\/\/ana:\*\*\*@127\.0\.0\.1:1\/app\?sslmode=disable&password=\*\*\*" cannot be used: .+\n$/,
    );
    expect(result.code).toBe(5);
  });
});
