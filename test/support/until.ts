/**
 * Polls `read` every 20 ms until it gives a value (anything but undefined, null or false) and
 * returns it; throws naming `what` once `ms` have passed without one.
 */
export async function until<T>(
  read: () => T | Promise<T>,
  what: string,
  ms = 10_000,
): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== null && value !== false) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
