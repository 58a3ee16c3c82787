// Which `ct` binary serves this window: the user's `commandtree.serverPath`, else the one bundled
// in the extension for this platform, else `ct` on PATH.

import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export interface LocateInput {
  /** User-level setting only: a workspace must not choose which program runs. */
  serverPath: string | undefined;
  extensionPath: string;
  platform: NodeJS.Platform;
  arch: string;
  pathEnv: string | undefined;
}

export type Located = { path: string; source: 'setting' | 'bundled' | 'path' } | { error: string };

function executable(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    if (platform !== 'win32') {
      fs.accessSync(file, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

export function exeName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'ct.exe' : 'ct';
}

/** `bin/<platform>-<arch>/ct`: VS Code's target names (`linux-x64`, `darwin-arm64`, `win32-x64`). */
export function bundledPath(extensionPath: string, platform: NodeJS.Platform, arch: string): string {
  return path.join(extensionPath, 'bin', `${platform}-${arch}`, exeName(platform));
}

export function locateServer(input: LocateInput): Located {
  const setting = input.serverPath?.trim();
  if (setting) {
    const expanded = setting.startsWith('~') ? path.join(os.homedir(), setting.slice(1)) : setting;
    if (executable(expanded, input.platform)) {
      return { path: expanded, source: 'setting' };
    }
    return { error: `commandtree.serverPath is "${setting}", which is not an executable file.` };
  }
  const bundled = bundledPath(input.extensionPath, input.platform, input.arch);
  if (executable(bundled, input.platform)) {
    return { path: bundled, source: 'bundled' };
  }
  for (const dir of (input.pathEnv ?? '').split(path.delimiter)) {
    if (dir === '') {
      continue;
    }
    const candidate = path.join(dir, exeName(input.platform));
    if (executable(candidate, input.platform)) {
      return { path: candidate, source: 'path' };
    }
  }
  return {
    error: `The CommandTree server (ct) was not found: not bundled for ${input.platform}-${input.arch} and not on PATH.`,
  };
}

/**
 * Whether `file` is a `ct` that has the `lsp` subcommand. Another program called `ct`, or a `ct`
 * from before the editor server, would otherwise only show up as a server that keeps crashing.
 * Resolves to a reason when it is not usable, undefined when it is.
 */
export function checkServer(file: string, timeoutMs = 10000): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, ['lsp', '--help'], { timeout: timeoutMs, windowsHide: true }, (error, stdout, stderr) => {
      if (!error && /lsp/i.test(stdout)) {
        resolve(undefined);
        return;
      }
      const said = `${stderr}${stdout}`.trim().split('\n')[0] ?? '';
      resolve(`${file} is not a ct with an editor server (\`ct lsp --help\` ${error ? 'failed' : 'printed no help'}${said ? `: ${said}` : ''}).`);
    });
  });
}
