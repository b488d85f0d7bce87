/**
 * ask-engine's pi extension inside a real pi agent session, offline: pi's SDK with its faux
 * model, which calls `ask_user`. Run this way there is no UI (like `pi -p` or JSON mode), so the
 * tool answers `unavailable` and the model is told nobody could be asked; in interactive pi the
 * question opens in the terminal view. Install it into pi with one line:
 *
 *   pi install npm:ask-engine
 *
 * Run (in a clone): node --conditions=ask-engine:source --import tsx examples/pi-extension.ts
 * Run (installed): npx tsx node_modules/ask-engine/examples/pi-extension.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fauxAssistantMessage,
  fauxText,
  fauxToolCall,
  registerFauxProvider,
} from '@mariozechner/pi-ai';
import {
  AuthStorage,
  createAgentSession,
  DefaultResourceLoader,
  ModelRegistry,
  SessionManager,
  SettingsManager,
} from '@mariozechner/pi-coding-agent';
import askEngineExtension from 'ask-engine/pi';

const dir = mkdtempSync(join(tmpdir(), 'pi-example-'));
const faux = registerFauxProvider();
faux.setResponses([
  fauxAssistantMessage(
    fauxToolCall('ask_user', { question: 'Which database?', options: ['PostgreSQL', 'SQLite'] }),
    { stopReason: 'toolUse' },
  ),
  fauxAssistantMessage(fauxText('I could not ask you, so I will wait for your choice.')),
]);
const loader = new DefaultResourceLoader({
  cwd: dir,
  agentDir: dir,
  noExtensions: true,
  extensionFactories: [askEngineExtension],
});
await loader.reload();
const authStorage = AuthStorage.inMemory();
authStorage.setRuntimeApiKey(faux.getModel().provider, 'offline');
const { session } = await createAgentSession({
  cwd: dir,
  agentDir: dir,
  model: faux.getModel(),
  authStorage,
  modelRegistry: ModelRegistry.inMemory(authStorage),
  resourceLoader: loader,
  sessionManager: SessionManager.inMemory(dir),
  settingsManager: SettingsManager.inMemory(),
});
await session.prompt('Set up the database.');
for (const message of session.messages) {
  if (message.role === 'toolResult') {
    const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    console.log(`[${message.toolName}${message.isError ? ', error' : ''}] ${text}`);
  } else if (message.role === 'assistant') {
    const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    if (text !== '') console.log(`[model] ${text}`);
  }
}
session.dispose();
faux.unregister();
rmSync(dir, { recursive: true, force: true });
