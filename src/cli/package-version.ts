/** The installed package's version, read from its own manifest. */
import { createRequire } from 'node:module';

/**
 * @example
 * packageVersion() // => '0.1.0'
 */
export function packageVersion(): string {
  const manifest = createRequire(import.meta.url)('ask-engine/package.json') as {
    version: string;
  };
  return manifest.version;
}
