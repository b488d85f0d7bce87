/** The opaque data a caller keeps with an ask (`start`'s `attachment` option). */
import { type Static, Type } from '@sinclair/typebox';

/**
 * What an integration keeps with an ask for whoever settles or resumes it, on any host: the
 * engine stores it with the ask when the ask is created, hands it back through `service.get`,
 * and never reads, changes or shows it. `kind` names what `data` is (`openai-agents.run-state`),
 * `version` the version of what wrote it, so a reader can refuse data it cannot read.
 */
export const AskAttachmentSchema = Type.Object(
  {
    /** What `data` is, named by the integration that wrote it. */
    kind: Type.String({ minLength: 1, maxLength: 256 }),
    /** The version of what wrote `data` (a package's version, a schema version). */
    version: Type.String({ minLength: 1, maxLength: 256 }),
    /** The data itself, as text (JSON, or anything the integration serializes). */
    data: Type.String(),
  },
  { additionalProperties: false },
);

/** What `start`'s `attachment` option keeps with an ask; see `AskAttachmentSchema`. */
export type AskAttachment = Static<typeof AskAttachmentSchema>;
