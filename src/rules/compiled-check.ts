/** A TypeBox schema compiled once, on first use: `check` on the hot path, `firstError` on failure. */
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';

export interface CompiledCheck<T> {
  check(value: unknown): value is T;
  /** The first problem, as TypeBox states it; only call it after `check` failed. */
  firstError(value: unknown): { path: string; message: string } | undefined;
}

/**
 * Compiling generates code (`new Function`), which a page under a strict Content Security
 * Policy forbids: there the same schema is checked by TypeBox's interpreter instead. Compiling
 * waits for the first check, so importing the browser-safe entry runs no generated code.
 */
export function compileCheck<T extends TSchema>(schema: T): CompiledCheck<Static<T>> {
  let check: ((value: unknown) => boolean) | undefined;
  const compiled = () => {
    if (check === undefined) {
      try {
        const typeCheck = TypeCompiler.Compile(schema);
        check = (value) => typeCheck.Check(value);
      } catch {
        check = (value) => Value.Check(schema, value);
      }
    }
    return check;
  };
  return {
    check: (value: unknown): value is Static<T> => compiled()(value),
    firstError(value) {
      const error = Value.Errors(schema, value).First();
      return error === undefined ? undefined : { path: error.path, message: error.message };
    },
  };
}
