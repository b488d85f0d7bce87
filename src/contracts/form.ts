/** The generic form any host can render, and the answer a client sends back. */
import { type Static, Type } from '@sinclair/typebox';

// Text roles: `title` and every `label` are plain text (a client shows them as they are; only
// control characters are written as escape sequences). `body` and every `description` are
// Markdown whose user-supplied parts are escaped, so they render literally.

export const UiFormChoiceSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    label: Type.String(),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type UiFormChoice = Static<typeof UiFormChoiceSchema>;

export const UiFormChoiceFieldSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    type: Type.Literal('choice'),
    label: Type.String(),
    description: Type.Optional(Type.String()),
    options: Type.Array(UiFormChoiceSchema),
  },
  { additionalProperties: false },
);

export const UiFormMultiChoiceFieldSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    type: Type.Literal('multi-choice'),
    label: Type.String(),
    description: Type.Optional(Type.String()),
    options: Type.Array(UiFormChoiceSchema),
    maxSelections: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);

export const UiFormTextFieldSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    type: Type.Literal('text'),
    label: Type.String(),
    description: Type.Optional(Type.String()),
    multiline: Type.Boolean(),
    /** The most UTF-8 bytes the field accepts; a longer value is refused, never shortened. */
    maxBytes: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);

export const UiFormFieldSchema = Type.Union([
  UiFormChoiceFieldSchema,
  UiFormMultiChoiceFieldSchema,
  UiFormTextFieldSchema,
]);
export type UiFormField = Static<typeof UiFormFieldSchema>;

export const UiFormActionSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    kind: Type.Union([Type.Literal('submit'), Type.Literal('cancel')]),
    label: Type.String(),
  },
  { additionalProperties: false },
);
export type UiFormAction = Static<typeof UiFormActionSchema>;

/** Tells a client that knows `id`@`version` it may render `data` its own way instead. */
export const UiFormHintSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    version: Type.String({ minLength: 1 }),
    data: Type.Unknown(),
  },
  { additionalProperties: false },
);
export type UiFormHint = Static<typeof UiFormHintSchema>;

export const UiFormSchema = Type.Object(
  {
    title: Type.String(),
    body: Type.Optional(Type.String()),
    fields: Type.Array(UiFormFieldSchema),
    actions: Type.Array(UiFormActionSchema),
    hint: Type.Optional(UiFormHintSchema),
  },
  { additionalProperties: false },
);
export type UiForm = Static<typeof UiFormSchema>;

/** `action` is an action id; `values` maps field ids to a string or, for multi-choice, strings. */
export const UiFormAnswerSchema = Type.Object(
  {
    action: Type.String(),
    values: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])),
  },
  { additionalProperties: false },
);
export type UiFormAnswer = Static<typeof UiFormAnswerSchema>;
