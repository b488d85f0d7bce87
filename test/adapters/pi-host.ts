/** A real pi agent session (pi's own SDK and its offline faux model) with ask-engine's extension loaded. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FauxResponseStep, registerFauxProvider } from '@mariozechner/pi-ai';
import {
  type AgentSession,
  AuthStorage,
  createAgentSession,
  DefaultResourceLoader,
  type ExtensionFactory,
  type ExtensionUIContext,
  initTheme,
  ModelRegistry,
  SessionManager,
  SettingsManager,
  Theme,
  type ToolDefinition,
} from '@mariozechner/pi-coding-agent';
import { type Component, type Terminal, TUI } from '@mariozechner/pi-tui';

export interface PiHost {
  session: AgentSession;
  /** Every tool the extension registered, as pi received it. */
  registered: ToolDefinition[];
  dispose(): void;
}

/** Starts a pi session in a temporary directory with `extension` and the faux model's `responses`. */
export async function startPi(
  extension: ExtensionFactory,
  responses: FauxResponseStep[],
): Promise<PiHost> {
  const dir = mkdtempSync(join(tmpdir(), 'ask-engine-pi-'));
  const faux = registerFauxProvider();
  faux.setResponses(responses);
  const registered: ToolDefinition[] = [];
  // Records what the extension registers, then hands it to pi unchanged.
  const recording: ExtensionFactory = (pi) =>
    extension(
      Object.assign(Object.create(pi), {
        registerTool(tool: ToolDefinition) {
          registered.push(tool);
          pi.registerTool(tool);
        },
      }),
    );
  const loader = new DefaultResourceLoader({
    cwd: dir,
    agentDir: dir,
    noExtensions: true,
    extensionFactories: [recording],
  });
  await loader.reload();
  const authStorage = AuthStorage.inMemory();
  // The faux model needs no key, but pi refuses to prompt a provider without one.
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
  return {
    session,
    registered,
    dispose() {
      session.dispose();
      faux.unregister();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An in-memory terminal for pi-tui: what an interactive pi would draw on. */
class MemoryTerminal implements Terminal {
  readonly columns = 100;
  readonly rows = 30;
  readonly kittyProtocolActive = false;
  start(): void {}
  stop(): void {}
  async drainInput(): Promise<void> {}
  write(): void {}
  moveBy(): void {}
  hideCursor(): void {}
  showCursor(): void {}
  clearLine(): void {}
  clearFromCursor(): void {}
  clearScreen(): void {}
  setTitle(): void {}
  setProgress(): void {}
}

/**
 * The part of pi's interactive UI the extension uses, `custom()`: the component it builds gets
 * the keys a test types. Every other method fails loudly, so an unexpected use shows.
 */
export function createInteractiveUi(): {
  ui: ExtensionUIContext;
  /** Resolves with the component of the next `custom()` call. */
  nextComponent(): Promise<Component>;
  /** Types keys into the open component. */
  press(component: Component, ...keys: string[]): void;
} {
  let waiting: ((component: Component) => void) | undefined;
  const shown: Component[] = [];
  const unused = (name: string) => () => {
    throw new Error(`The ask_user extension is not expected to call ui.${name}().`);
  };
  const ui: ExtensionUIContext = {
    async custom<T>(factory: Parameters<ExtensionUIContext['custom']>[0]): Promise<T> {
      const tui = new TUI(new MemoryTerminal());
      return new Promise<T>((resolve) => {
        void Promise.resolve(
          factory(tui, ui.theme, undefined as never, (result) => resolve(result as T)),
        ).then((component) => {
          shown.push(component);
          waiting?.(component);
          waiting = undefined;
        });
      });
    },
    select: unused('select'),
    confirm: unused('confirm'),
    input: unused('input'),
    notify: () => {},
    onTerminalInput: unused('onTerminalInput'),
    setStatus: () => {},
    setWorkingMessage: () => {},
    setWorkingVisible: () => {},
    setWorkingIndicator: () => {},
    setHiddenThinkingLabel: () => {},
    setWidget: () => {},
    setFooter: () => {},
    setHeader: () => {},
    setTitle: () => {},
    pasteToEditor: unused('pasteToEditor'),
    setEditorText: unused('setEditorText'),
    getEditorText: () => '',
    editor: unused('editor'),
    addAutocompleteProvider: () => {},
    setEditorComponent: () => {},
    getEditorComponent: () => undefined,
    get theme() {
      return themeForTests;
    },
    getAllThemes: () => [],
    getTheme: () => undefined,
    setTheme: () => ({ success: false, error: 'not in tests' }),
    getToolsExpanded: () => false,
    setToolsExpanded: () => {},
  };
  return {
    ui,
    nextComponent: () =>
      new Promise((resolve) => {
        const open = shown.shift();
        if (open !== undefined) resolve(open);
        else waiting = resolve;
      }),
    press(component, ...keys) {
      for (const key of keys) component.handleInput?.(key);
    },
  };
}

// pi's interactive mode draws with the theme `initTheme` installs; the renderers get the same one.
const themeForTests: Theme = (() => {
  initTheme('dark', false);
  const installed = (globalThis as { [key: symbol]: unknown })[
    Symbol.for('@mariozechner/pi-coding-agent:theme')
  ];
  if (!(installed instanceof Theme)) throw new Error('pi did not install its theme.');
  return installed;
})();
