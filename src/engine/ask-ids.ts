/** The default ask id generator. */

/**
 * Ask ids unique across processes that share a store: a random prefix per service and a
 * counter, which costs a tenth of a fresh UUID per ask.
 */
export function sequentialIds(): () => string {
  const prefix = globalThis.crypto.randomUUID();
  let counter = 0;
  return () => `${prefix}-${(counter++).toString(36)}`;
}
