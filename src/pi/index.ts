/**
 * `ask-engine/pi`: a pi coding-agent extension (`@mariozechner/pi-coding-agent`, an optional
 * peer dependency) that registers `ask_user` and asks in pi's own terminal UI.
 * Install: `pi install npm:ask-engine` (the package.json `pi` manifest points here); for one run, `pi -e npm:ask-engine`.
 *
 * @module ask-engine/pi
 */
import { createAskEngineExtension } from './extension.js';

export { type AskEngineExtensionOptions, createAskEngineExtension } from './extension.js';
export { createPiProvider, type PiContextLookup } from './pi-provider.js';

/** The extension with default options: what `pi install` loads. */
export default createAskEngineExtension();
