/**
 * Which JSON Schema keywords the engine can check an edited tool input against: a schema with an
 * assertion outside them is refused up front, naming the keyword, so an edit is never let through
 * unchecked (json-schema-check.ts checks the ones listed here).
 */
import { escapePointer, resolveRef } from './json-schema-check.js';

// Keywords that describe and never constrain: read by forms (title, description, default) or
// nobody. `format` is an annotation unless a validator opts in (JSON Schema 2019-09 on).
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'format',
  'contentMediaType',
  'contentEncoding',
]);

const ASSERTIONS = new Set([
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minProperties',
  'maxProperties',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  '$ref',
  '$defs',
  'definitions',
]);

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/**
 * The first keyword of `schema` (at any depth) this check cannot enforce, as a message naming it
 * and where it is; `undefined` when every keyword is one it enforces or an annotation.
 */
export function unsupportedSchemaKeyword(
  schema: unknown,
  path = '#',
  root: unknown = schema,
): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return `${path} is not a schema (an object or a boolean)`;
  }
  const record = schema as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (ANNOTATIONS.has(key)) continue;
    if (!ASSERTIONS.has(key)) return `${path} uses the keyword ${JSON.stringify(key)}`;
    const at = `${path}/${key}`;
    switch (key) {
      case 'type': {
        const types = Array.isArray(value) ? value : [value];
        const bad = types.find((type) => typeof type !== 'string' || !TYPES.has(type));
        if (bad !== undefined || types.length === 0) return `${at} names no known type`;
        break;
      }
      case 'properties':
      case '$defs':
      case 'definitions': {
        if (typeof value !== 'object' || value === null) return `${at} is not an object`;
        for (const [name, inner] of Object.entries(value)) {
          const problem = unsupportedSchemaKeyword(inner, `${at}/${escapePointer(name)}`, root);
          if (problem !== undefined) return problem;
        }
        break;
      }
      case 'additionalProperties':
      case 'items':
      case 'not': {
        // Draft 4-7 tuple `items` (an array) is not supported; draft 2020-12 has prefixItems.
        const problem = unsupportedSchemaKeyword(value, at, root);
        if (problem !== undefined) return problem;
        break;
      }
      case 'anyOf':
      case 'oneOf':
      case 'allOf': {
        if (!Array.isArray(value) || value.length === 0) return `${at} is not a list of schemas`;
        for (const [index, inner] of value.entries()) {
          const problem = unsupportedSchemaKeyword(inner, `${at}/${index}`, root);
          if (problem !== undefined) return problem;
        }
        break;
      }
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        // Draft 4's boolean form changes what minimum/maximum mean; only the number form here.
        if (typeof value !== 'number') return `${at} is not a number (draft 4's boolean form)`;
        break;
      case '$ref':
        if (typeof value !== 'string' || resolveRef(root, value) === undefined) {
          return `${at} is ${JSON.stringify(value)}, not a reference to an entry of the schema's #/$defs or #/definitions`;
        }
        break;
      case 'required':
        if (!Array.isArray(value) || value.some((name) => typeof name !== 'string')) {
          return `${at} is not a list of property names`;
        }
        break;
      case 'pattern':
        if (typeof value !== 'string') return `${at} is not a string`;
        try {
          new RegExp(value, 'u');
        } catch {
          return `${at} is not a regular expression JavaScript reads`;
        }
        break;
      case 'enum':
        if (!Array.isArray(value)) return `${at} is not a list`;
        break;
      default:
        if (key !== 'const' && key !== 'uniqueItems' && typeof value !== 'number') {
          return `${at} is not a number`;
        }
    }
  }
  return undefined;
}
