// Interop check of `ct mcp` with an independent client: the official TypeScript MCP SDK.
//
// Usage: node interop.mjs CT_BINARY WORKSPACE            (stdio: the SDK starts `ct mcp`)
//        node interop.mjs --http URL TOKEN WORKSPACE     (a running `ct mcp --http`)
//
// Lists the tools, calls list_commands, run_command and list_runs (the SDK checks
// structuredContent against each tool's outputSchema), lists the prompts and gets one, then adds a command
// definition to WORKSPACE and waits for notifications/prompts/list_changed. Prints one JSON line
// with what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PromptListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
let transport;
let root;
if (args[0] === "--http") {
  const [, url, token, workspace] = args;
  root = workspace;
  transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
} else {
  const [ct, workspace] = args;
  root = workspace;
  transport = new StdioClientTransport({
    command: ct,
    args: ["--root", workspace, "mcp"],
    cwd: workspace,
    stderr: "inherit",
  });
}

const client = new Client({ name: "commandtree-ts-interop", version: "0" });
let heard;
const changed = new Promise((resolve) => {
  heard = resolve;
});
client.setNotificationHandler(PromptListChangedNotificationSchema, () => heard(true));
await client.connect(transport);

const tools = await client.listTools();
const listed = await client.callTool({ name: "list_commands", arguments: {} });
const ran = await client.callTool({
  name: "run_command",
  arguments: { id: "greet.sh", params: { name: `it's "me" $(id)` } },
});
const failed = await client.callTool({ name: "run_command", arguments: { id: "fail.sh" } });
const runs = await client.callTool({ name: "list_runs", arguments: { limit: 2 } });
const prompts = await client.listPrompts();
const got = await client.getPrompt({
  name: "fix-issue",
  arguments: { arg1: "#42", arg2: "parser" },
});

writeFileSync(
  join(root, ".commandtree", "commands", "ship-it.command.md"),
  "---\ndescription: Ship a release\n---\nShip version $1.\n",
);
const timeout = new Promise((resolve) => setTimeout(() => resolve(false), 20000));
const heardChange = await Promise.race([changed, timeout]);
const after = heardChange ? await client.listPrompts() : null;

const byName = (list) => Object.fromEntries(list.map((p) => [p.name, (p.arguments ?? []).map((a) => a.name)]));
console.log(
  JSON.stringify({
    protocolVersion: transport.protocolVersion ?? null,
    server: client.getServerVersion()?.name,
    tools: tools.tools.map((t) => t.name).sort(),
    outputSchemas: tools.tools.filter((t) => t.outputSchema).map((t) => t.name).sort(),
    readOnly: Object.fromEntries(tools.tools.map((t) => [t.name, t.annotations?.readOnlyHint ?? null])),
    listedTotal: listed.structuredContent?.total,
    listedText: listed.content.map((c) => c.text),
    ran: { exitCode: ran.structuredContent?.exitCode, output: ran.structuredContent?.output, isError: ran.isError ?? false },
    failed: { exitCode: failed.structuredContent?.exitCode, isError: failed.isError ?? false },
    runs: (runs.structuredContent?.runs ?? []).map((r) => [r.label, r.status, r.mode, r.exitCode ?? null]),
    prompts: byName(prompts.prompts),
    prompt: got.messages.map((m) => m.content.text),
    heardChange,
    promptsAfter: after ? byName(after.prompts) : null,
  }),
);
await client.close();
