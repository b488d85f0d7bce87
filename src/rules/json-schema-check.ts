/**
 * Checks a value against a tool's input JSON Schema: the keywords tool schemas use (what zod,
 * TypeBox and MCP servers emit), checked exactly. Which keywords those are is the rule of
 * json-schema-keywords.ts, which refuses any other schema up front.
 */
import { canonicalJson } from './call-digest.js';

/** One problem with a value: where (a JSON Pointer into the value) and what. */
export interface JsonSchemaProblem {
  path: string;
  message: string;
}

/**
 * The first problem of `value` against `schema` (one `unsupportedSchemaKeyword` accepted), or
 * `undefined` when it conforms.
 */
export function firstSchemaProblem(schema: unknown, value: unknown): JsonSchemaProblem | undefined {
  return check(schema, value, '', schema);
}

function check(
  schema: unknown,
  value: unknown,
  path: string,
  root: unknown,
): JsonSchemaProblem | undefined {
  if (schema === true) return undefined;
  if (schema === false) return { path, message: 'no value is allowed here' };
  const s = schema as Record<string, unknown>;
  const fail = (message: string): JsonSchemaProblem => ({ path: path || '/', message });
  if (typeof s.$ref === 'string') {
    const target = resolveRef(root, s.$ref);
    if (target === undefined) return fail(`the schema's reference ${s.$ref} leads nowhere`);
    const problem = check(target, value, path, root);
    if (problem !== undefined) return problem;
  }
  if (s.type !== undefined) {
    const types = (Array.isArray(s.type) ? s.type : [s.type]) as string[];
    if (!types.some((type) => isType(value, type))) {
      return fail(`expected ${types.join(' or ')}, got ${kindOf(value)}`);
    }
  }
  if (Array.isArray(s.enum) && !s.enum.some((option) => sameJson(option, value))) {
    return fail(`expected one of ${s.enum.map((option) => JSON.stringify(option)).join(', ')}`);
  }
  if ('const' in s && !sameJson(s.const, value)) {
    return fail(`expected ${JSON.stringify(s.const)}`);
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) return fail(`below ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) return fail(`above ${s.maximum}`);
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) {
      return fail(`expected more than ${s.exclusiveMinimum}`);
    }
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) {
      return fail(`expected less than ${s.exclusiveMaximum}`);
    }
    if (typeof s.multipleOf === 'number' && !Number.isInteger(value / s.multipleOf)) {
      return fail(`expected a multiple of ${s.multipleOf}`);
    }
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof s.minLength === 'number' && length < s.minLength) {
      return fail(`expected at least ${s.minLength} characters, got ${length}`);
    }
    if (typeof s.maxLength === 'number' && length > s.maxLength) {
      return fail(`expected at most ${s.maxLength} characters, got ${length}`);
    }
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) {
      return fail(`does not match the pattern ${s.pattern}`);
    }
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) {
      return fail(`expected at least ${s.minItems} items, got ${value.length}`);
    }
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) {
      return fail(`expected at most ${s.maxItems} items, got ${value.length}`);
    }
    if (s.uniqueItems === true) {
      const seen = new Set(value.map(canonicalJson));
      if (seen.size !== value.length) return fail('expected items that differ');
    }
    if (s.items !== undefined) {
      for (const [index, item] of value.entries()) {
        const problem = check(s.items, item, `${path}/${index}`, root);
        if (problem !== undefined) return problem;
      }
    }
  }
  if (isObject(value)) {
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    const count = Object.keys(value).length;
    if (typeof s.minProperties === 'number' && count < s.minProperties) {
      return fail(`expected at least ${s.minProperties} fields`);
    }
    if (typeof s.maxProperties === 'number' && count > s.maxProperties) {
      return fail(`expected at most ${s.maxProperties} fields`);
    }
    for (const name of (s.required ?? []) as string[]) {
      if (!Object.hasOwn(value, name)) {
        return { path: `${path}/${escapePointer(name)}`, message: 'is required' };
      }
    }
    for (const [name, item] of Object.entries(value)) {
      const where = `${path}/${escapePointer(name)}`;
      const own = Object.hasOwn(properties, name) ? properties[name] : undefined;
      if (own !== undefined) {
        const problem = check(own, item, where, root);
        if (problem !== undefined) return problem;
      } else if (s.additionalProperties !== undefined) {
        if (s.additionalProperties === false) {
          return { path: where, message: 'is not a field of this tool' };
        }
        const problem = check(s.additionalProperties, item, where, root);
        if (problem !== undefined) return problem;
      }
    }
  }
  if (Array.isArray(s.allOf)) {
    for (const inner of s.allOf) {
      const problem = check(inner, value, path, root);
      if (problem !== undefined) return problem;
    }
  }
  if (Array.isArray(s.anyOf)) {
    const problems = s.anyOf.map((inner) => check(inner, value, path, root));
    if (!problems.includes(undefined)) return problems[0];
  }
  if (Array.isArray(s.oneOf)) {
    const matches = s.oneOf.filter((inner) => check(inner, value, path, root) === undefined);
    if (matches.length !== 1) {
      return fail(
        `expected exactly one of ${s.oneOf.length} alternatives, ${matches.length} match`,
      );
    }
  }
  if (s.not !== undefined && check(s.not, value, path, root) === undefined) {
    return fail('matches a schema it must not');
  }
  return undefined;
}

/** The schema a local `$ref` (`#/$defs/<name>` or `#/definitions/<name>`) names in `root`. */
export function resolveRef(root: unknown, ref: string): unknown {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null || !isObject(root)) return undefined;
  const table = root[match[1]!];
  if (!isObject(table)) return undefined;
  const name = match[2]!.replace(/~1/g, '/').replace(/~0/g, '~');
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

function isType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    default:
      return isObject(value);
  }
}

/** The JSON type of a value, for a message (never the value: it may be redacted input). */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** A property name as a JSON Pointer segment (`~` and `/` escaped). */
export function escapePointer(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}
