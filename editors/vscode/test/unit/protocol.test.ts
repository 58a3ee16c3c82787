// The extension against docs/lsp-protocol.md: every `commandtree/*` method the extension sends,
// handles or listens for is one the protocol document describes (the server's side is checked
// against the same document by crates/commandtree-lsp/src/protocol_doc.rs), so a renamed or
// undocumented method fails here rather than at run time.

import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';

const root = path.resolve(__dirname, '..', '..', '..');
const doc = fs.readFileSync(path.resolve(root, '..', '..', 'docs', 'lsp-protocol.md'), 'utf8');

function methods(text: string): Set<string> {
  return new Set(Array.from(text.matchAll(/commandtree\/([A-Za-z0-9]+)/g), (m) => `commandtree/${m[1]}`));
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('the protocol document', () => {
  it('describes every method the extension uses', () => {
    const documented = methods(doc.split('\n').filter((l) => l.startsWith('### ') || l.startsWith('- ')).join('\n'));
    const used = new Set<string>();
    for (const file of sources(path.join(root, 'src'))) {
      // Quoted names only: a method the code sends, handles or listens for.
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/['"`](commandtree\/[A-Za-z0-9]+)['"`]/g)) {
        if (m[1]) {
          used.add(m[1]);
        }
      }
    }
    assert.ok(used.size > 10, `found ${used.size} methods in the extension's sources`);
    const missing = [...used].filter((m) => !documented.has(m));
    assert.deepStrictEqual(missing, [], 'methods the extension uses that docs/lsp-protocol.md does not describe');
  });
});
