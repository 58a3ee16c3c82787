// Drives a real VS Code (code-server) in headless Chromium through the CommandTree views.
// usage: node drive.js URL WORKSPACE CT_BINARY SCREENSHOT
// Each check prints "ok - ..." or throws; the exit status is 0 only when all passed.
'use strict';
const { chromium } = require('playwright-core');
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [url, workspace, ct, screenshot] = process.argv.slice(2);
if (!url || !workspace || !ct || !screenshot) {
  console.error('usage: node drive.js URL WORKSPACE CT_BINARY SCREENSHOT');
  process.exit(2);
}
const started = Date.now();
const since = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const ok = (what) => console.log(`ok - ${what} (${since()})`);

const sidebar = '#workbench\\.parts\\.sidebar';

async function sidebarRows(page) {
  return page.$$eval(`${sidebar} .monaco-list-row`, (els) => els.map((e) => e.getAttribute('aria-label') || e.textContent.trim()));
}

/** The row whose label is exactly `label` inside the view titled `viewTitle`. */
function rowIn(page, viewTitle, label) {
  const pane = page.locator(`${sidebar} .pane`).filter({ has: page.locator(`.pane-header[aria-label^="${viewTitle}"]`) });
  return pane.locator('.monaco-list-row').filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) }).first();
}

async function expand(page, view, label) {
  const row = rowIn(page, view, label);
  await row.waitFor({ timeout: 30000 });
  // A click that lands while the view re-renders (the server's first answers arrive in bursts)
  // can be lost, as it would be for a user, who clicks again: so does this, a few times.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if ((await row.getAttribute('aria-expanded')) === 'true') {
      return;
    }
    await row.click();
    await page.waitForTimeout(300);
  }
}

/** Hovers a row so its inline buttons render, then clicks the one with this title. */
async function inline(page, row, title) {
  // The tooltip of a button clicked before stays while the mouse rests on it and can cover the
  // next row: the mouse leaves first.
  await page.mouse.move(5, 5);
  await page.locator('.context-view .hover-contents').first().waitFor({ state: 'hidden', timeout: 5000 }).catch(() => undefined);
  await row.hover();
  const button = row.locator(`.action-label[aria-label="${title}"]`).first();
  await button.waitFor({ timeout: 10000 });
  await button.click();
}

(async () => {
  const udd = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-e2e-chromium-'));
  const ctx = await chromium.launchPersistentContext(udd, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 900 },
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  const logs = [];
  page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
  try {
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    ok('workbench loaded');

    const activity = page.locator('.activitybar [aria-label^="CommandTree"]').first();
    await activity.waitFor({ timeout: 60000 });
    await activity.click();
    ok('CommandTree activity bar entry opened');

    // 1. The tree shows the fixture's categories with counts, and their commands.
    const all = 'CommandTree - All';
    for (const category of ['Shell Scripts (1)', 'NPM Scripts (2)', 'Make Targets (3)']) {
      await rowIn(page, all, category).waitFor({ timeout: 60000 });
    }
    ok('categories: Shell Scripts (1), NPM Scripts (2), Make Targets (3)');
    await expand(page, all, 'NPM Scripts (2)');
    await expand(page, all, 'Shell Scripts (1)');
    await expand(page, all, 'Make Targets (3)');
    for (const label of ['build', 'lint', 'hello.sh', 'all', 'test', '_cleanup']) {
      await rowIn(page, all, label).waitFor({ timeout: 20000 });
    }
    ok('commands: build, lint, hello.sh, all, test, _cleanup');

    // 2. "Add to Quick Launch" puts the command in the Quick Launch view, and ct sees it.
    await inline(page, rowIn(page, all, 'build'), 'Add to Quick Launch');
    await rowIn(page, 'CommandTree - Quick Launch', 'build').waitFor({ timeout: 20000 });
    ok('build is in the Quick Launch view');
    const quick = JSON.parse(execFileSync(ct, ['--root', workspace, 'quick', '--json'], { encoding: 'utf8' }));
    const ids = (Array.isArray(quick) ? quick : quick.commands || quick.ids || []).map((q) => (typeof q === 'string' ? q : q.id));
    if (!ids.some((id) => id.startsWith('npm:') && id.endsWith(':build'))) {
      throw new Error(`ct quick --json does not list npm build: ${JSON.stringify(quick)}`);
    }
    ok(`ct quick --json lists it: ${ids.join(', ')}`);

    // 3. A new file adds a command without a refresh (the server's watcher).
    const added = path.join(workspace, 'scripts', 'added.sh');
    fs.writeFileSync(added, '#!/usr/bin/env bash\necho added\n', { mode: 0o755 });
    await rowIn(page, all, 'Shell Scripts (2)').waitFor({ timeout: 30000 });
    await expand(page, all, 'Shell Scripts (2)');
    // Two commands in scripts/ now make a folder row (upstream's grouping, §4.2).
    await expand(page, all, 'scripts');
    await rowIn(page, all, 'added.sh').waitFor({ timeout: 20000 });
    ok('scripts/added.sh appeared without a refresh');

    // 4. Running a script shows its output in a terminal.
    await inline(page, rowIn(page, all, 'hello.sh'), 'Run Command (New Terminal)');
    const tab = page.locator('.terminal-tabs-entry, .single-terminal-tab, .terminal-tab').filter({ hasText: 'CommandTree: hello.sh' }).first();
    await page
      .locator('.xterm-rows', { hasText: 'hello from the commandtree fixture' })
      .first()
      .waitFor({ timeout: 30000 });
    ok(`terminal shows "hello from the commandtree fixture" (tab visible: ${await tab.isVisible().catch(() => false)})`);
    const marker = path.join(workspace, '.hello-ran');
    for (let i = 0; i < 50 && !fs.existsSync(marker); i += 1) {
      await page.waitForTimeout(100);
    }
    if (!fs.existsSync(marker)) {
      throw new Error('hello.sh did not run (no marker file)');
    }
    ok('hello.sh ran (marker file written)');

    // 4b. The row of a command that ran says how its last run ended (shell integration
    // reports the end and the exit code); a run started in a shell (`ct run -d`) shows as
    // running with its elapsed time, and the row's inline Stop ends it.
    await rowIn(page, all, 'hello.sh').locator('.label-description', { hasText: /^✓/ }).waitFor({ timeout: 30000 });
    ok(`hello.sh's row says its last run succeeded: "${await rowIn(page, all, 'hello.sh').locator('.label-description').textContent()}"`);
    fs.writeFileSync(path.join(workspace, 'scripts', 'slow.sh'), '#!/usr/bin/env bash\nsleep 300\n', { mode: 0o755 });
    await rowIn(page, all, 'slow.sh').waitFor({ timeout: 30000 });
    const detached = execFileSync(ct, ['--root', workspace, 'run', '-d', 'slow.sh'], { encoding: 'utf8' });
    const slow = rowIn(page, all, 'slow.sh');
    await slow.locator('.label-description', { hasText: /^running \d+s/ }).waitFor({ timeout: 30000 });
    ok(`a detached run from a shell shows on its row: "${await slow.locator('.label-description').textContent()}" (${detached.trim().split('\n')[0]})`);
    await inline(page, slow, 'Stop');
    await slow.locator('.label-description', { hasText: /^■ stopped/ }).waitFor({ timeout: 30000 });
    const stillRunning = JSON.parse(execFileSync(ct, ['--root', workspace, 'runs', '--running', '--json'], { encoding: 'utf8' }));
    if (stillRunning.length !== 0) {
      throw new Error(`ct runs --running still lists ${JSON.stringify(stillRunning)}`);
    }
    ok('the inline Stop ended it: the row says stopped and ct runs --running lists nothing');

    // 5. A crashed server is restarted and the views say so.
    const pids = execFileSync('pgrep', ['-f', `^${ct} --root ${workspace} lsp$`], { encoding: 'utf8' }).trim().split('\n');
    if (pids.length !== 1) {
      throw new Error(`expected one ct lsp for this workspace, found ${JSON.stringify(pids)}`);
    }
    process.kill(Number(pids[0]), 'SIGKILL');
    await page
      .locator(`${sidebar} .pane`, { has: page.locator('.pane-header[aria-label^="CommandTree - All"]') })
      .locator('.message', { hasText: 'crashed and was restarted' })
      .first()
      .waitFor({ timeout: 30000 });
    await rowIn(page, all, 'hello.sh').waitFor({ timeout: 20000 });
    const after = execFileSync('pgrep', ['-f', `^${ct} --root ${workspace} lsp$`], { encoding: 'utf8' }).trim();
    if (after === '' || after === pids[0]) {
      throw new Error('no new ct lsp process after the crash');
    }
    ok(`killed ct lsp (pid ${pids[0]}); restarted as pid ${after}, the views say so and still list the commands`);

    // 6. The @agent chat participant is registered (VS Code accepted it; no Copilot needed).
    const logs = process.env.E2E_USER_DATA ? path.join(process.env.E2E_USER_DATA, 'logs') : undefined;
    const registered = () => {
      const found = [];
      const walk = (dir) => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const p = path.join(dir, e.name);
          if (e.isDirectory()) walk(p);
          else if (/CommandTree\.log$/.test(e.name) && fs.readFileSync(p, 'utf8').includes('chat participant @agent registered')) found.push(p);
        }
      };
      if (logs && fs.existsSync(logs)) walk(logs);
      return found;
    };
    if (!logs) {
      throw new Error('set E2E_USER_DATA to the user data folder of code-server');
    }
    for (let i = 0; i < 100 && registered().length === 0; i += 1) {
      await page.waitForTimeout(100);
    }
    if (registered().length === 0) {
      throw new Error(`no "chat participant @agent registered" in the CommandTree output under ${logs}`);
    }
    ok('the @agent chat participant is registered');

    await page.mouse.move(700, 450);
    await page.screenshot({ path: screenshot });
    ok(`screenshot ${screenshot}`);
    console.log(`sidebar rows: ${JSON.stringify(await sidebarRows(page))}`);

    // 7. A multi-root workspace: the fixture and a second folder, one ct lsp each, a node per
    // folder in the All view with that folder's categories beneath.
    const multiUrl = process.env.E2E_MULTI_URL;
    const second = process.env.E2E_SECOND_FOLDER;
    if (!multiUrl || !second) {
      throw new Error('set E2E_MULTI_URL (code-server on the multi-root workspace) and E2E_SECOND_FOLDER');
    }
    await page.goto(multiUrl, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    const activity2 = page.locator('.activitybar [aria-label^="CommandTree"]').first();
    await activity2.waitFor({ timeout: 60000 });
    if (!(await rowIn(page, all, 'fixture').isVisible().catch(() => false))) {
      await activity2.click();
    }
    await rowIn(page, all, 'fixture').waitFor({ timeout: 60000 });
    await rowIn(page, all, 'second').waitFor({ timeout: 60000 });
    await expand(page, all, 'second');
    await rowIn(page, all, 'Make Targets (1)').waitFor({ timeout: 30000 });
    await expand(page, all, 'Make Targets (1)');
    await rowIn(page, all, 'deploy').waitFor({ timeout: 20000 });
    const secondServer = execFileSync('pgrep', ['-f', `^${ct} --root ${second} lsp$`], { encoding: 'utf8' }).trim().split('\n');
    if (secondServer.length !== 1 || secondServer[0] === '') {
      throw new Error(`expected one ct lsp for ${second}, found ${JSON.stringify(secondServer)}`);
    }
    ok(`multi-root: folders fixture and second in the All view, second's deploy listed by its own ct lsp (pid ${secondServer[0]})`);
    console.log(`all checks passed in ${since()}`);
  } catch (e) {
    await page.screenshot({ path: screenshot.replace(/\.png$/, '-failure.png') }).catch(() => undefined);
    console.error(`FAIL after ${since()}: ${e && e.stack ? e.stack : e}`);
    console.error(`sidebar rows: ${JSON.stringify(await sidebarRows(page).catch(() => []))}`);
    console.error('browser console (last 40 lines):\n' + logs.slice(-40).join('\n'));
    process.exitCode = 1;
  } finally {
    await ctx.close();
    fs.rmSync(udd, { recursive: true, force: true });
  }
})();
