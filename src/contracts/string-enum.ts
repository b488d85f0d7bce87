/** A flat string enum schema: `{ type: 'string', enum: [...] }`, never an `anyOf` of literals. */
import { type TUnsafe, Type } from '@sinclair/typebox';

// Several model providers and proxies strip or reject `anyOf`/`oneOf`, so the
// model-facing schema spells enums the way every JSON Schema consumer understands.
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
