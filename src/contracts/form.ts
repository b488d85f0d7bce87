/** The generic form any host can render, and the answer a client sends back. */
import { type Static, Type } from '@sinclair/typebox';

// Text roles: `title` and every `label` are plain text (a client shows them as they are; only
// control characters are written as escape sequences). `body` and every `description` are
// Markdown whose user-supplied parts are escaped, so they render literally.

/** One option of a choice field; the client sends back its `id`, not its label. */
export const UiFormChoiceSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    label: Type.String(),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
/** A selectable option of a choice or multi-choice field. */
export type UiFormChoice = Static<typeof UiFormChoiceSchema>;

/** Pick exactly one of `options`; the value sent back is the chosen option's id. */
export const UiFormChoiceFieldSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    type: Type.Literal('choice'),
    label: Type.String(),
    description: Type.Optional(Type.String()),
    options: Type.Array(UiFormChoiceSchema),
    /** The option id chosen until the person picks another (an edit field's current value). */
    default: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/** Pick one or more of `options`, at most `maxSelections`; the value sent back is their ids. */
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

/** Type text, on one line or several (`multiline`); the value sent back is the text. */
export const UiFormTextFieldSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    type: Type.Literal('text'),
    label: Type.String(),
    description: Type.Optional(Type.String()),
    multiline: Type.Boolean(),
    /** The most UTF-8 bytes the field accepts; a longer value is refused, never shortened. */
    maxBytes: Type.Integer({ minimum: 1 }),
    /** The text the field starts with (an edit field's current value); sent back as it stands. */
    default: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** A form field: `choice`, `multi-choice` or `text`, told apart by `type`. */
export const UiFormFieldSchema = Type.Union([
  UiFormChoiceFieldSchema,
  UiFormMultiChoiceFieldSchema,
  UiFormTextFieldSchema,
]);
/** One input of a form; its `id` keys its value in the answer's `values`. */
export type UiFormField = Static<typeof UiFormFieldSchema>;

/** A button that ends the form: `submit` sends the values, `cancel` dismisses the form. */
export const UiFormActionSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    kind: Type.Union([Type.Literal('submit'), Type.Literal('cancel')]),
    label: Type.String(),
  },
  { additionalProperties: false },
);
/** A form's submit or cancel button; the answer names it by `id`. */
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
/** Optional richer data for clients that know the hint's `id` and `version`. */
export type UiFormHint = Static<typeof UiFormHintSchema>;

/**
 * A form any host can render with plain widgets: a title, an optional Markdown body, fields
 * and actions, plus an optional hint for clients that can do better.
 */
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
/** The generic form a form host shows; `buildAskUserForm` makes one from questions. */
export type UiForm = Static<typeof UiFormSchema>;

/** `action` is an action id; `values` maps field ids to a string or, for multi-choice, strings. */
export const UiFormAnswerSchema = Type.Object(
  {
    action: Type.String(),
    values: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])),
  },
  { additionalProperties: false },
);
/** What a client sends back for a form: the action taken and the field values. */
export type UiFormAnswer = Static<typeof UiFormAnswerSchema>;
