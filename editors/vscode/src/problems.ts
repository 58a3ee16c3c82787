// The problems a run printed, as VS Code diagnostics: the server's parser reads the output
// (`commandtree/problems`), this turns its answer into one `DiagnosticCollection`. Each run's
// problems are kept under its command, so running a command again clears only its own.

import * as vscode from 'vscode';
import type { Problem } from './protocol.generated';

const SEVERITY: Record<Problem['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

/** One problem as a diagnostic: lines and columns are 1-based on the wire, 0-based here. */
export function diagnosticOf(p: Problem, label: string): vscode.Diagnostic {
  const line = Math.max(0, p.line - 1);
  const col = Math.max(0, (p.column ?? 1) - 1);
  // Without a column the whole line is meant; a long end is clipped to the line by VS Code.
  const range = new vscode.Range(line, p.column !== undefined ? col : 0, line, p.column !== undefined ? col + 1 : Number.MAX_SAFE_INTEGER);
  const d = new vscode.Diagnostic(range, p.message, SEVERITY[p.severity]);
  d.source = `${p.source} (${label})`;
  if (p.code !== undefined) {
    d.code = p.code;
  }
  return d;
}

export class RunDiagnostics {
  /** By key (folder and command): the command's label and its last run's problems. */
  private readonly byRun = new Map<string, { label: string; problems: Problem[] }>();

  constructor(private readonly collection: vscode.DiagnosticCollection) {}

  static key(root: string, commandId: string): string {
    return `${root}\n${commandId}`;
  }

  set(key: string, label: string, problems: Problem[]): void {
    if (problems.length === 0) {
      this.clear(key);
      return;
    }
    this.byRun.set(key, { label, problems });
    this.render();
  }

  clear(key: string): void {
    if (this.byRun.delete(key)) {
      this.render();
    }
  }

  /** How many problems are shown for `key`. */
  count(key: string): number {
    return this.byRun.get(key)?.problems.length ?? 0;
  }

  private render(): void {
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const { label, problems } of this.byRun.values()) {
      for (const p of problems) {
        const list = byFile.get(p.path) ?? [];
        list.push(diagnosticOf(p, label));
        byFile.set(p.path, list);
      }
    }
    this.collection.clear();
    for (const [file, list] of byFile) {
      this.collection.set(vscode.Uri.file(file), list);
    }
  }

  dispose(): void {
    this.collection.dispose();
  }
}
