import { describe, expect, it } from 'vitest';
import { withoutCredentials } from '../../src/cli/credentials.js';

describe('withoutCredentials', () => {
  it('masks the user-info password, written and decoded, wherever the text quotes it', () => {
    const url = 'postgres://ana:p%40ss@db:5432/app';
    expect(withoutCredentials(`${url} failed: password p@ss refused`, url)).toBe(
      'postgres://ana:***@db:5432/app failed: password *** refused',
    );
  });

  it('masks a password holding an unencoded @ up to the host', () => {
    const url = 'postgresql://ana:a@b@db/app';
    expect(withoutCredentials(url, url)).toBe('postgresql://ana:***@db/app');
  });

  it('masks every password= parameter, whatever its case', () => {
    const url = 'postgres://db/app?sslmode=require&Password=one+two&password=three';
    expect(withoutCredentials(url, url)).toBe(
      'postgres://db/app?sslmode=require&Password=***&password=***',
    );
    expect(withoutCredentials('auth failed for "one two"', url)).toBe('auth failed for "***"');
  });

  it('leaves a URL without a password and a file path as they are', () => {
    for (const plain of [
      'postgres://ana@db/app',
      'postgres://db/app',
      '/var/lib/asks.db',
      'asks:1.db',
    ]) {
      expect(withoutCredentials(`cannot open ${plain}`, plain)).toBe(`cannot open ${plain}`);
    }
  });
});
