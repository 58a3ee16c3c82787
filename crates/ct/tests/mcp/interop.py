"""Interop check of `ct mcp` with an independent client: the official Python MCP SDK.

Usage: python interop.py CT_BINARY WORKSPACE          (stdio: the SDK starts `ct mcp`)
       python interop.py --http URL TOKEN               (a running `ct mcp --http`)
Lists the tools, calls list_commands, run_command and list_runs (the SDK validates
structuredContent against each tool's outputSchema), lists the prompts and gets one, and prints one JSON line with
what it saw.
"""

import asyncio
import contextlib
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


@contextlib.asynccontextmanager
async def connect(args: list[str]):
    if args[0] == "--http":
        url, token = args[1], args[2]
        headers = {"Authorization": f"Bearer {token}"}
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                yield streams[0], streams[1]
    else:
        ct, root = args
        params = StdioServerParameters(command=ct, args=["--root", root, "mcp"], cwd=root)
        async with stdio_client(params) as (read, write):
            yield read, write


async def main(args: list[str]) -> None:
    async with connect(args) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            listed = await session.call_tool("list_commands", {})
            ran = await session.call_tool(
                "run_command",
                {"id": "greet.sh", "params": {"name": "it's \"me\" $(id)"}},
            )
            failed = await session.call_tool("run_command", {"id": "fail.sh"})
            runs = await session.call_tool("list_runs", {"limit": 2})
            prompts = await session.list_prompts()
            got = await session.get_prompt("fix-issue", {"arg1": "#42", "arg2": "parser"})
            print(
                json.dumps(
                    {
                        "protocolVersion": init.protocol_version,
                        "server": init.server_info.name,
                        "tools": sorted(t.name for t in tools.tools),
                        "annotations": {
                            t.name: t.annotations.model_dump(by_alias=True, exclude_none=True)
                            for t in tools.tools
                            if t.annotations
                        },
                        "outputSchemas": sorted(t.name for t in tools.tools if t.output_schema),
                        "listed": listed.structured_content,
                        "listedText": [c.text for c in listed.content],
                        "ran": ran.structured_content,
                        "ranIsError": ran.is_error,
                        "failed": failed.structured_content,
                        "failedIsError": failed.is_error,
                        "runs": [
                            [r["label"], r["status"], r["mode"], r.get("exitCode")]
                            for r in runs.structured_content["runs"]
                        ],
                        "prompts": {
                            p.name: [a.name for a in (p.arguments or [])] for p in prompts.prompts
                        },
                        "prompt": [m.content.text for m in got.messages],
                    }
                )
            )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
