/** A mistake in how the CLI was called: reported on stderr with exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
