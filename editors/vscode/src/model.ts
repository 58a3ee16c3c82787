// What both views show: the server's tree, Quick Launch order and the commands by id. The server
// builds the tree (categories, folders, sorting, tag filter); this only keeps the last answer,
// shares concurrent refreshes and turns `tasksChanged` into a re-read.

import * as vscode from 'vscode';
import { CommandItem, TasksChanged, TreeCategory, commandsOf } from './protocol';
import { RunTracker } from './runs';
import { Server, SortOrder } from './server';

/**
 * A setting's value only where the user set it (folder, workspace or user settings), never the
 * package default: the server has its own defaults and reads `.vscode/settings.json` itself, and
 * sent patterns replace its defaults.
 */
export function explicitValue<T>(
  i: { globalValue?: T; workspaceValue?: T; workspaceFolderValue?: T } | undefined,
): T | undefined {
  return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
}

export interface Settings {
  excludePatterns(): string[] | undefined;
  sortOrder(): SortOrder;
}

export class Model {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  tasks = new Map<string, CommandItem>();
  categories: TreeCategory[] = [];
  quickIds: string[] = [];
  filterTag: string | undefined;
  /** A line the views show above their rows (server missing, restarted, discovery failed). */
  status: string | undefined;
  loaded = false;

  private inFlight: Promise<void> | undefined;
  private treeInFlight: Promise<void> | undefined;
  private treeAgain = false;

  /** What runs and how each command last ran (the rows show it). */
  readonly runs = new RunTracker();

  constructor(
    private server: Server | undefined,
    private readonly settings: Settings,
  ) {
    this.runs.onDidChange(() => {
      this.changed.fire();
    });
  }

  setServer(server: Server | undefined): void {
    this.server = server;
  }

  get hasServer(): boolean {
    return this.server !== undefined;
  }

  setStatus(status: string | undefined): void {
    this.status = status;
    this.changed.fire();
  }

  /** Full refresh: discovery, then tree and Quick Launch. Callers arriving meanwhile share it. */
  refresh(): Promise<void> {
    if (!this.inFlight) {
      this.inFlight = this.doRefresh().finally(() => {
        this.inFlight = undefined;
      });
    }
    return this.inFlight;
  }

  private async doRefresh(): Promise<void> {
    const server = this.server;
    if (!server) {
      this.changed.fire();
      return;
    }
    const found = await server.discoverTasks(this.settings.excludePatterns());
    this.tasks = new Map(found.tasks.map((t) => [t.id, t]));
    await this.fetchTree(server);
  }

  /**
   * Re-reads the tree and Quick Launch (tags, stars, moves, watched changes). A call made while
   * one is running schedules exactly one more, so the last change is never missed.
   */
  refreshTree(): Promise<void> {
    if (this.treeInFlight) {
      this.treeAgain = true;
      return this.treeInFlight;
    }
    const run = async (): Promise<void> => {
      do {
        this.treeAgain = false;
        if (this.server) {
          await this.fetchTree(this.server);
        }
      } while (this.rereadRequested());
    };
    this.treeInFlight = run().finally(() => {
      this.treeInFlight = undefined;
    });
    return this.treeInFlight;
  }

  // A method, not the field, so the loop condition is read after the await.
  private rereadRequested(): boolean {
    return this.treeAgain;
  }

  private async fetchTree(server: Server): Promise<void> {
    const [categories, quick] = await Promise.all([
      server.tree(this.settings.sortOrder(), this.filterTag, this.tasks),
      server.quick(),
    ]);
    for (const c of categories) {
      for (const item of commandsOf(c.children)) {
        this.tasks.set(item.id, item);
      }
    }
    this.categories = categories;
    this.quickIds = quick;
    this.loaded = true;
    this.changed.fire();
  }

  /** `commandtree/tasksChanged`: keep the items current, then ask the server for the new tree. */
  applyChange(change: TasksChanged): Promise<void> {
    if (change.tasks) {
      this.tasks = new Map(change.tasks.map((t) => [t.id, t]));
    }
    for (const id of change.removed ?? []) {
      this.tasks.delete(id);
    }
    for (const t of [...(change.added ?? []), ...(change.updated ?? [])]) {
      this.tasks.set(t.id, t);
    }
    return this.refreshTree();
  }

  setFilter(tag: string | undefined): Promise<void> {
    this.filterTag = tag;
    return this.refreshTree();
  }

  /** Every tag on a current command, sorted (the filter and tag pickers offer these). */
  allTags(): string[] {
    const tags = new Set<string>();
    for (const t of this.tasks.values()) {
      for (const tag of t.tags) {
        tags.add(tag);
      }
    }
    return [...tags].sort();
  }

  isQuick(item: CommandItem): boolean {
    return this.quickIds.includes(item.id) || item.tags.includes('quick');
  }

  /** Quick Launch in its stored order; ids of commands that no longer exist are left out. */
  quickItems(): CommandItem[] {
    return this.quickIds.map((id) => this.tasks.get(id)).filter((t): t is CommandItem => t !== undefined);
  }

  dispose(): void {
    this.runs.dispose();
    this.changed.dispose();
  }
}
