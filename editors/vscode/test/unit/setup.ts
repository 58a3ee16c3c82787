// Makes `require('vscode')` load the mock (see vscode-mock.ts for why a mock is used here).
import Module from 'module';
import * as path from 'path';

const mockPath = path.join(__dirname, 'vscode-mock.js');
type Resolve = (request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolve };
const original = loader._resolveFilename;
loader._resolveFilename = function (request: string, ...rest: unknown[]): string {
  return request === 'vscode' ? mockPath : original.call(this, request, ...rest);
};
