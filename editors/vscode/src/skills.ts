// In-memory documents for the command-skill diff: the file as it was sent to the model and the
// model's version. The diff editor reads them through this provider, so nothing reaches the disk
// until the user chooses Apply and the server writes the file.

import * as path from 'path';
import * as vscode from 'vscode';

export const SKILL_SCHEME = 'commandtree-skill';

export interface DiffPair {
  left: vscode.Uri;
  right: vscode.Uri;
  /** Forgets both texts (the diff editor has been closed). */
  release(): void;
}

export class SkillDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private next = 0;
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** Two documents for one proposal. The file's own name ends both paths, so the diff editor
   * picks the file's language for highlighting; the number keeps proposals apart. */
  open(file: string, original: string, proposed: string): DiffPair {
    this.next += 1;
    const name = path.basename(file);
    const left = `/${this.next}/original/${name}`;
    const right = `/${this.next}/proposed/${name}`;
    this.texts.set(left, original);
    this.texts.set(right, proposed);
    return {
      left: vscode.Uri.parse(`${SKILL_SCHEME}:${left}`),
      right: vscode.Uri.parse(`${SKILL_SCHEME}:${right}`),
      release: () => {
        this.texts.delete(left);
        this.texts.delete(right);
      },
    };
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? '';
  }

  /** How many texts are held (for tests: a finished proposal leaves none). */
  get size(): number {
    return this.texts.size;
  }

  dispose(): void {
    this.texts.clear();
    this.changed.dispose();
  }
}
