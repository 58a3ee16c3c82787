// A stand-in for the `vscode` module. The real one exists only inside a running VS Code
// extension host, so unit tests replace it with this mock (installed by setup.ts); the end-to-end
// test (test/e2e.sh) runs the same code against a real VS Code. Only the API surface the
// extension uses is here, and every UI call is recorded so tests can assert on it and script
// the user's answers.

export class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  event = (listener: (e: T) => void): { dispose(): void } => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export class ThemeColor {
  constructor(public readonly id: string) {}
}

export class ThemeIcon {
  constructor(
    public readonly id: string,
    public readonly color?: ThemeColor,
  ) {}
}

export class MarkdownString {
  constructor(public value = '') {}
}

export class Position {
  constructor(
    public readonly line: number,
    public readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(startLine: number, startCharacter: number, endLine: number, endCharacter: number) {
    this.start = new Position(startLine, startCharacter);
    this.end = new Position(endLine, endCharacter);
  }
}

export class Uri {
  private constructor(
    public readonly scheme: string,
    public readonly path: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  static parse(s: string): Uri {
    const i = s.indexOf(':');
    return new Uri(s.slice(0, i), s.slice(i + 1));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}`;
  }
}

export class TreeItem {
  id?: string;
  description?: string;
  iconPath?: ThemeIcon;
  tooltip?: MarkdownString;
  contextValue?: string;
  resourceUri?: Uri;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(
    public label: string,
    public collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export class FileDecoration {
  constructor(
    public badge?: string,
    public tooltip?: string,
    public color?: ThemeColor,
  ) {}
}

export class DataTransferItem {
  constructor(public readonly value: unknown) {}
  asString(): Promise<string> {
    return Promise.resolve(String(this.value));
  }
}

export class DataTransfer {
  private readonly map = new Map<string, DataTransferItem>();
  get(mime: string): DataTransferItem | undefined {
    return this.map.get(mime);
  }
  set(mime: string, item: DataTransferItem): void {
    this.map.set(mime, item);
  }
  get size(): number {
    return this.map.size;
  }
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };
  cancel(): void {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export class TabInputTextDiff {
  constructor(
    public readonly original: Uri,
    public readonly modified: Uri,
  ) {}
}

export interface FakeTab {
  input: unknown;
  label: string;
}

export interface FakeTerminal {
  name: string;
  options: Record<string, unknown>;
  /** What was typed, and the lines run through shell integration. */
  sent: string[];
  shown: boolean;
  processId: Promise<number>;
  shellIntegration?: { executeCommand(line: string): FakeExecution };
  show(preserveFocus?: boolean): void;
  sendText(text: string, addNewLine?: boolean): void;
}

/** A line run through a terminal's shell integration: the test prints into it and ends it. */
export class FakeExecution {
  chunks: string[] = [];
  done = false;
  wake: () => void = () => undefined;
  constructor(
    readonly commandLine: string,
    readonly terminal: FakeTerminal,
  ) {}
  read(): AsyncIterable<string> {
    return printed(this);
  }
  print(data: string): void {
    this.chunks.push(data);
    this.wake();
  }
  /** The line ends: its stream closes, then VS Code's end event comes. */
  end(exitCode: number | undefined): void {
    this.done = true;
    this.wake();
    shellEnded.fire({ execution: this, exitCode, terminal: this.terminal });
  }
}

async function* printed(e: FakeExecution): AsyncIterable<string> {
  for (;;) {
    const next = e.chunks.shift();
    if (next !== undefined) {
      yield next;
      continue;
    }
    if (e.done) {
      return;
    }
    await new Promise<void>((r) => (e.wake = r));
  }
}

const shellEnded = new EventEmitter<{ execution: FakeExecution; exitCode: number | undefined; terminal: FakeTerminal }>();
const terminalClosed = new EventEmitter<FakeTerminal>();
const taskProcessEnded = new EventEmitter<{ execution: FakeTaskExecution; exitCode: number | undefined }>();
const taskEnded = new EventEmitter<{ execution: FakeTaskExecution }>();
const taskProcessStarted = new EventEmitter<{ execution: FakeTaskExecution; processId: number }>();
const debugStarted = new EventEmitter<FakeDebugSession>();
const debugEnded = new EventEmitter<FakeDebugSession>();

export interface FakeTaskExecution {
  task: { name: string };
  terminated: boolean;
  terminate(): void;
}

export interface FakeDebugSession {
  name: string;
  configuration: { name?: string };
}

/** The events a test fires as VS Code would. */
export const fire = {
  taskStarted(execution: FakeTaskExecution, processId: number): void {
    taskProcessStarted.fire({ execution, processId });
  },
  taskEnded(execution: FakeTaskExecution, exitCode: number | undefined): void {
    taskProcessEnded.fire({ execution, exitCode });
    taskEnded.fire({ execution });
  },
  debugEnded(session: FakeDebugSession): void {
    debugEnded.fire(session);
  },
  terminalClosed(t: FakeTerminal): void {
    terminalClosed.fire(t);
  },
};

export enum DiagnosticSeverity {
  Error = 0,
  Warning = 1,
  Information = 2,
  Hint = 3,
}

export class Diagnostic {
  source?: string;
  code?: string | number;
  constructor(
    public range: Range,
    public message: string,
    public severity: DiagnosticSeverity = DiagnosticSeverity.Error,
  ) {}
}

export class FakeDiagnosticCollection {
  readonly entries = new Map<string, Diagnostic[]>();
  set(uri: Uri, list: Diagnostic[]): void {
    this.entries.set(uri.fsPath, list);
  }
  clear(): void {
    this.entries.clear();
  }
  dispose(): void {
    this.entries.clear();
  }
}

export const languages = {
  createDiagnosticCollection(): FakeDiagnosticCollection {
    return new FakeDiagnosticCollection();
  },
};

export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}

/** Everything the code under test did through the API, and the scripted user answers. */
export const recorded = {
  terminals: [] as FakeTerminal[],
  messages: [] as { level: 'info' | 'warning' | 'error'; text: string; options: unknown[] }[],
  executed: [] as { command: string; args: unknown[] }[],
  clipboard: '',
  debugStarts: [] as { folder: unknown; config: unknown }[],
  debugResult: true,
  inputBoxes: [] as Record<string, unknown>[],
  quickPicks: [] as { items: unknown[]; options: Record<string, unknown> }[],
  /** Answers handed out in order to showInputBox / showQuickPick / createQuickPick / showWarningMessage. */
  answers: [] as unknown[],
  tasks: [] as { name: string }[],
  executedTasks: [] as { name: string }[],
  taskExecutions: [] as FakeTaskExecution[],
  /** Lines run through shell integration, in order. */
  executions: [] as FakeExecution[],
  /** New terminals come without shell integration (an unsupported shell). */
  noShellIntegration: false,
  /** The session `startDebugging` starts (its start event fires before the answer). */
  debugSessions: [] as FakeDebugSession[],
  stoppedDebug: [] as FakeDebugSession[],
  activeTerminal: undefined as FakeTerminal | undefined,
  /** The language models `lm.selectChatModels` offers (none by default, as without Copilot). */
  models: [] as FakeChatModel[],
  /** Untitled documents opened with their content. */
  documents: [] as { content: string; language: string }[],
  participants: [] as { id: string; handler: unknown; iconPath?: unknown }[],
  /** Open editor tabs (diff editors opened through `vscode.diff`), and the ones closed. */
  tabs: [] as FakeTab[],
  closedTabs: [] as FakeTab[],
  /** The next withProgress runs with its token already cancelled (the user pressed Cancel). */
  cancelProgress: false,
  /** The file of the active text editor (none: no editor is open). */
  activeEditor: undefined as Uri | undefined,
  /** The options of each `showWorkspaceFolderPick`. */
  folderPicks: [] as Record<string, unknown>[],
  reset(): void {
    this.activeEditor = undefined;
    this.folderPicks = [];
    workspace.workspaceFolders = [{ uri: Uri.file('/ws'), name: 'ws', index: 0 }];
    this.tabs = [];
    this.closedTabs = [];
    this.cancelProgress = false;
    this.terminals = [];
    this.messages = [];
    this.executed = [];
    this.clipboard = '';
    this.debugStarts = [];
    this.debugResult = true;
    this.inputBoxes = [];
    this.quickPicks = [];
    this.answers = [];
    this.tasks = [];
    this.executedTasks = [];
    this.taskExecutions = [];
    this.executions = [];
    this.noShellIntegration = false;
    this.debugSessions = [];
    this.stoppedDebug = [];
    this.activeTerminal = undefined;
    this.models = [];
    this.documents = [];
    this.participants = [];
  },
};

function nextAnswer(): unknown {
  return recorded.answers.shift();
}

function makeTerminal(options: Record<string, unknown>): FakeTerminal {
  const t: FakeTerminal = {
    name: typeof options.name === 'string' ? options.name : '',
    options,
    sent: [],
    shown: false,
    processId: Promise.resolve(4242),
    show() {
      t.shown = true;
    },
    sendText(text: string) {
      t.sent.push(text);
    },
  };
  if (!recorded.noShellIntegration) {
    t.shellIntegration = {
      executeCommand(line: string): FakeExecution {
        t.sent.push(line);
        const e = new FakeExecution(line, t);
        recorded.executions.push(e);
        return e;
      },
    };
  }
  return t;
}

export const window = {
  onDidChangeTerminalShellIntegration: new EventEmitter<unknown>().event,
  onDidEndTerminalShellExecution: shellEnded.event,
  onDidCloseTerminal: terminalClosed.event,
  get activeTerminal(): FakeTerminal | undefined {
    return recorded.activeTerminal;
  },
  get activeTextEditor(): { document: { uri: Uri } } | undefined {
    return recorded.activeEditor ? { document: { uri: recorded.activeEditor } } : undefined;
  },
  /** A number picks that workspace folder; anything else is returned as is (undefined: cancelled). */
  showWorkspaceFolderPick(options: Record<string, unknown> = {}): Promise<unknown> {
    recorded.folderPicks.push(options);
    const answer = nextAnswer();
    return Promise.resolve(typeof answer === 'number' ? workspace.workspaceFolders[answer] : answer);
  },
  createTerminal(options: Record<string, unknown>): FakeTerminal {
    const t = makeTerminal(options);
    recorded.terminals.push(t);
    return t;
  },
  showInformationMessage(text: string, ...options: unknown[]): Promise<unknown> {
    recorded.messages.push({ level: 'info', text, options });
    // Only a message with buttons waits for the user's choice.
    return Promise.resolve(options.length > 0 ? nextAnswer() : undefined);
  },
  showErrorMessage(text: string, ...options: unknown[]): Promise<unknown> {
    recorded.messages.push({ level: 'error', text, options });
    return Promise.resolve(undefined);
  },
  showWarningMessage(text: string, ...options: unknown[]): Promise<unknown> {
    recorded.messages.push({ level: 'warning', text, options });
    return Promise.resolve(nextAnswer());
  },
  showInputBox(options: Record<string, unknown>): Promise<unknown> {
    recorded.inputBoxes.push(options);
    return Promise.resolve(nextAnswer());
  },
  showQuickPick(items: unknown[], options: Record<string, unknown> = {}): Promise<unknown> {
    recorded.quickPicks.push({ items, options });
    const answer = nextAnswer();
    // A number picks that item (like a user choosing a row); anything else is returned as is.
    return Promise.resolve(typeof answer === 'number' ? items[answer] : answer);
  },
  createQuickPick(): unknown {
    const accept = new EventEmitter<void>();
    const hide = new EventEmitter<void>();
    const pick = {
      placeholder: '',
      items: [] as { label: string }[],
      selectedItems: [] as { label: string }[],
      value: '',
      onDidAccept: accept.event,
      onDidHide: hide.event,
      show(): void {
        recorded.quickPicks.push({ items: pick.items, options: { placeHolder: pick.placeholder } });
        const answer = nextAnswer();
        setImmediate(() => {
          if (answer === undefined) {
            hide.fire();
            return;
          }
          if (typeof answer === 'number') {
            const chosen = pick.items[answer];
            pick.selectedItems = chosen ? [chosen] : [];
          } else {
            pick.value = typeof answer === 'string' ? answer : '';
          }
          accept.fire();
        });
      },
      hide(): void {
        hide.fire();
      },
      dispose(): void {
        accept.dispose();
        hide.dispose();
      },
    };
    return pick;
  },
  withProgress<R>(
    _options: unknown,
    task: (progress: { report(v: unknown): void }, token: CancellationTokenSource['token']) => Promise<R>,
  ): Promise<R> {
    const source = new CancellationTokenSource();
    if (recorded.cancelProgress) {
      recorded.cancelProgress = false;
      source.cancel();
    }
    return task({ report: () => undefined }, source.token);
  },
  showTextDocument(doc: unknown): Promise<unknown> {
    return Promise.resolve(doc);
  },
  tabGroups: {
    get all(): { tabs: FakeTab[] }[] {
      return [{ tabs: recorded.tabs }];
    },
    close(tabs: FakeTab[]): Promise<boolean> {
      recorded.closedTabs.push(...tabs);
      recorded.tabs = recorded.tabs.filter((t) => !tabs.includes(t));
      return Promise.resolve(true);
    },
  },
};

export const commands = {
  executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    recorded.executed.push({ command, args });
    if (command === 'vscode.diff' && args[0] instanceof Uri && args[1] instanceof Uri) {
      recorded.tabs.push({ input: new TabInputTextDiff(args[0], args[1]), label: String(args[2]) });
    }
    return Promise.resolve(undefined);
  },
  registerCommand(): { dispose(): void } {
    return { dispose: () => undefined };
  },
};

export const env = {
  clipboard: {
    writeText(text: string): Promise<void> {
      recorded.clipboard = text;
      return Promise.resolve();
    },
  },
};

export const workspace = {
  isTrusted: true,
  workspaceFolders: [{ uri: Uri.file('/ws'), name: 'ws', index: 0 }] as { uri: Uri; name: string; index: number }[],
  openTextDocument(options: { content: string; language: string }): Promise<unknown> {
    recorded.documents.push({ content: options.content, language: options.language });
    return Promise.resolve(options);
  },
  registerTextDocumentContentProvider(): { dispose(): void } {
    return { dispose: () => undefined };
  },
};

export const debug = {
  onDidStartDebugSession: debugStarted.event,
  onDidTerminateDebugSession: debugEnded.event,
  startDebugging(folder: unknown, config: unknown): Promise<boolean> {
    recorded.debugStarts.push({ folder, config });
    if (recorded.debugResult) {
      const name = typeof config === 'string' ? config : ((config as { name?: string }).name ?? '');
      const session: FakeDebugSession = { name, configuration: { name } };
      recorded.debugSessions.push(session);
      debugStarted.fire(session);
    }
    return Promise.resolve(recorded.debugResult);
  },
  stopDebugging(session: FakeDebugSession): Promise<void> {
    recorded.stoppedDebug.push(session);
    return Promise.resolve();
  },
};

export const tasks = {
  onDidStartTaskProcess: taskProcessStarted.event,
  onDidEndTaskProcess: taskProcessEnded.event,
  onDidEndTask: taskEnded.event,
  fetchTasks(): Promise<{ name: string }[]> {
    return Promise.resolve(recorded.tasks);
  },
  executeTask(task: { name: string }): Promise<FakeTaskExecution> {
    recorded.executedTasks.push(task);
    const execution: FakeTaskExecution = {
      task,
      terminated: false,
      terminate() {
        execution.terminated = true;
      },
    };
    recorded.taskExecutions.push(execution);
    return Promise.resolve(execution);
  },
};

// `vscode.lm` and `vscode.chat`: faked, because no Copilot (or any) language model can exist
// outside a signed-in VS Code; the fake models record what they were sent.

export enum LanguageModelChatMessageRole {
  User = 1,
  Assistant = 2,
}

export class LanguageModelChatMessage {
  static User(content: string): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.User, content);
  }
  static Assistant(content: string): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.Assistant, content);
  }
  constructor(
    public role: LanguageModelChatMessageRole,
    public content: string,
  ) {}
}

export enum LanguageModelChatToolMode {
  Auto = 1,
  Required = 2,
}

export class LanguageModelTextPart {
  constructor(public value: string) {}
}

export class LanguageModelToolCallPart {
  constructor(
    public callId: string,
    public name: string,
    public input: object,
  ) {}
}

type Token = CancellationTokenSource['token'];

/**
 * A model whose reply is `pieces`, streamed one by one, then `toolCalls` (in `stream` only, as
 * tool call parts); `hold` keeps it from finishing. `sent` records the options, so a test sees
 * the tools and tool mode it was given.
 */
export class FakeChatModel {
  sent: { messages: LanguageModelChatMessage[]; options: Record<string, unknown>; token: Token }[] = [];
  toolCalls: { name: string; input: object }[] = [];
  /** Resolves when the model has received a request (for tests that cancel mid-reply). */
  received: Promise<void>;
  private gotIt: () => void = () => undefined;
  hold: Promise<void> = Promise.resolve();
  constructor(
    public readonly id: string,
    public readonly family: string,
    public readonly vendor: string,
    public pieces: string[],
  ) {
    this.received = new Promise((r) => (this.gotIt = r));
  }
  get name(): string {
    return this.id;
  }
  sendRequest(
    messages: LanguageModelChatMessage[],
    options: Record<string, unknown>,
    token: Token,
  ): Promise<{ text: AsyncIterable<string>; stream: AsyncIterable<unknown> }> {
    this.sent.push({ messages, options, token });
    this.gotIt();
    const pieces = this.pieces;
    const calls = this.toolCalls;
    const hold = (): Promise<void> => this.hold;
    async function* text(): AsyncIterable<string> {
      for (const p of pieces) {
        await hold();
        if (token.isCancellationRequested) {
          return;
        }
        yield p;
      }
    }
    async function* stream(): AsyncIterable<unknown> {
      for await (const p of text()) {
        yield new LanguageModelTextPart(p);
      }
      for (const [i, c] of calls.entries()) {
        await hold();
        if (token.isCancellationRequested) {
          return;
        }
        yield new LanguageModelToolCallPart(`call-${i}`, c.name, c.input);
      }
    }
    return Promise.resolve({ text: text(), stream: stream() });
  }
}

export const lm = {
  selectChatModels(selector: { id?: string; family?: string; vendor?: string } = {}): Promise<FakeChatModel[]> {
    return Promise.resolve(
      recorded.models.filter(
        (m) =>
          (selector.id === undefined || m.id === selector.id) &&
          (selector.family === undefined || m.family === selector.family) &&
          (selector.vendor === undefined || m.vendor === selector.vendor),
      ),
    );
  },
};

export const chat = {
  createChatParticipant(id: string, handler: unknown): { iconPath?: unknown; dispose(): void } {
    const p = { id, handler, iconPath: undefined as unknown, dispose: () => undefined };
    recorded.participants.push(p);
    return p;
  },
};
