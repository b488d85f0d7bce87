/** The installed package's own manifest: its version, and the ranges of its optional peers. */
import { createRequire } from 'node:module';

interface Manifest {
  version: string;
  peerDependencies?: Record<string, string>;
}

function manifest(): Manifest {
  return createRequire(import.meta.url)('ask-engine/package.json') as Manifest;
}

/**
 * @example
 * packageVersion() // => '0.1.0'
 */
export function packageVersion(): string {
  return manifest().version;
}

/**
 * The version range ask-engine declares for a peer dependency, or undefined for a package it
 * does not declare.
 *
 * @example
 * peerRange('better-sqlite3') // => '^12.11.1'
 */
export function peerRange(packageName: string): string | undefined {
  return manifest().peerDependencies?.[packageName];
}
