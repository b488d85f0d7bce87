/** The one error type the engine throws, with a string code and a data payload. */

export const USER_INTERACTION_ERROR_CODES = [
  'EMPTY_QUESTIONS',
  'TOO_MANY_QUESTIONS',
  'INVALID_REQUEST',
  'BAD_INTENT',
  'LIMIT_EXCEEDED',
  'NO_PROVIDER',
  'DUPLICATE_PROVIDER',
  'INVALID_ANSWER',
  'ASK_SETTLED',
  'UNKNOWN_INTERACTION',
] as const;
/**
 * What went wrong, as a stable string: a request that cannot be asked (`EMPTY_QUESTIONS`,
 * `TOO_MANY_QUESTIONS`, `INVALID_REQUEST`, `BAD_INTENT`, `LIMIT_EXCEEDED`), no or a second
 * provider (`NO_PROVIDER`, `DUPLICATE_PROVIDER`), a refused answer (`INVALID_ANSWER`), an ask
 * that already has its outcome (`ASK_SETTLED`) or an unknown id (`UNKNOWN_INTERACTION`).
 */
export type UserInteractionErrorCode = (typeof USER_INTERACTION_ERROR_CODES)[number];

// A registry symbol, so an error thrown by one bundled copy of ask-engine is
// recognised by another copy loaded in the same process or page.
const BRAND = Symbol.for('ask-engine.UserInteractionError');

/**
 * @example
 * try { await service.resume(id, answers) }
 * catch (error) { if (isUserInteractionError(error, 'ASK_SETTLED')) ... }
 */
export class UserInteractionError<
  TData extends Record<string, unknown> = Record<string, unknown>,
> extends Error {
  override readonly name = 'UserInteractionError';
  readonly code: UserInteractionErrorCode;
  readonly data: TData;

  constructor(code: UserInteractionErrorCode, message: string, data: TData = {} as TData) {
    super(message);
    this.code = code;
    this.data = data;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isUserInteractionError(value);
  }
}

/** True for a `UserInteractionError` from any copy of ask-engine, optionally of one code. */
export function isUserInteractionError(
  value: unknown,
  code?: UserInteractionErrorCode,
): value is UserInteractionError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true &&
    (code === undefined || (value as UserInteractionError).code === code)
  );
}
