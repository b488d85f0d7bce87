import { registerFauxProvider, fauxAssistantMessage, fauxToolCall, fauxText } from '@mariozechner/pi-ai';
import { AuthStorage, createAgentSession, DefaultResourceLoader, ModelRegistry, SessionManager, SettingsManager } from '@mariozechner/pi-coding-agent';
import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
import extension from './src/pi/index.ts';
const faux = registerFauxProvider();
faux.setResponses([
  fauxAssistantMessage(fauxToolCall('ask_user', { question: 'Which DB?', options: ['PostgreSQL', 'SQLite'] }, { id: 'call-1' }), { stopReason: 'toolUse' }),
  (context) => fauxAssistantMessage(fauxText('saw: ' + JSON.stringify(context.messages.at(-1)).slice(0, 300))),
]);
const dir = mkdtempSync(join(tmpdir(), 'pi-'));
const loader = new DefaultResourceLoader({ cwd: dir, agentDir: dir, extensionFactories: [extension], noExtensions: true } as any);
await loader.reload();
const authStorage = AuthStorage.inMemory();
authStorage.setRuntimeApiKey?.(faux.getModel().provider, 'x');
const { session } = await createAgentSession({ cwd: dir, agentDir: dir, model: faux.getModel(), authStorage, modelRegistry: ModelRegistry.inMemory(authStorage), resourceLoader: loader, sessionManager: SessionManager.inMemory(dir), settingsManager: SettingsManager.inMemory() });
console.log('tools', session.getAllTools?.().map((t) => t.name));
await session.prompt('hi');
for (const m of session.messages) console.log(m.role, JSON.stringify(m.content ?? m).slice(0, 400));
