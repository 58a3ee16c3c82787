// The VS Code extension's side of the shared database, with the engine it ships
// (node-sqlite3-wasm 0.8, whose VFS locks by creating the directory `<db>.lock`) and the
// statements of its tag store. Driven by crates/ct/tests/extension.rs:
//   node extension.js tags <db>                  prints [[command_id, tag_name], ...] as JSON
//   node extension.js add <db> <command_id> <tag>
//   node extension.js hold <db> <command_id> <tag> <ms>
//       takes the write lock, adds the tag, prints "holding", keeps the transaction open for
//       <ms>, commits and prints "committed"
'use strict';
const { Database } = require('node-sqlite3-wasm');
const crypto = require('node:crypto');

const [cmd, file, ...args] = process.argv.slice(2);

function open() {
  const db = new Database(file, { fileMustExist: true });
  db.exec('PRAGMA foreign_keys = ON');
  return db;
}

// addTagToCommand, as the extension writes it.
function addTag(db, commandId, tag) {
  db.run(
    "INSERT INTO commands (command_id, content_hash, summary, security_warning, last_updated) VALUES (?, '', '', NULL, ?) ON CONFLICT(command_id) DO NOTHING",
    [commandId, new Date().toISOString()],
  );
  db.run('INSERT OR IGNORE INTO tags (tag_id, tag_name, description) VALUES (?, ?, NULL)', [
    crypto.randomUUID(),
    tag,
  ]);
  const { tag_id: tagId } = db.get('SELECT tag_id FROM tags WHERE tag_name = ?', [tag]);
  const { next } = db.get(
    'SELECT COALESCE(MAX(display_order), -1) + 1 AS next FROM command_tags WHERE tag_id = ?',
    [tagId],
  );
  db.run(
    'INSERT OR IGNORE INTO command_tags (command_id, tag_id, display_order) VALUES (?, ?, ?)',
    [commandId, tagId, next],
  );
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const db = open();
try {
  switch (cmd) {
    case 'tags': {
      const rows = db.all(
        'SELECT ct.command_id, t.tag_name FROM command_tags ct JOIN tags t ON t.tag_id = ct.tag_id ORDER BY t.tag_name, ct.display_order',
      );
      console.log(JSON.stringify(rows.map((r) => [r.command_id, r.tag_name])));
      break;
    }
    case 'add':
      addTag(db, args[0], args[1]);
      break;
    case 'hold':
      db.exec('BEGIN IMMEDIATE');
      addTag(db, args[0], args[1]);
      console.log('holding');
      sleep(Number(args[2]));
      db.exec('COMMIT');
      console.log('committed');
      break;
    default:
      throw new Error(`unknown command ${cmd}`);
  }
} finally {
  db.close();
}
