"""Interop check of `ct mcp` with an independent client: the official Python MCP SDK.

Usage: python interop.py CT_BINARY WORKSPACE
Lists the tools, calls list_commands and run_command (the SDK validates structuredContent
against each tool's outputSchema), lists the prompts and gets one, and prints one JSON line with
what it saw.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(ct: str, root: str) -> None:
    params = StdioServerParameters(command=ct, args=["--root", root, "mcp"], cwd=root)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            listed = await session.call_tool("list_commands", {})
            ran = await session.call_tool(
                "run_command",
                {"id": "greet.sh", "params": {"name": "it's \"me\" $(id)"}},
            )
            failed = await session.call_tool("run_command", {"id": "fail.sh"})
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
                        "prompts": {
                            p.name: [a.name for a in (p.arguments or [])] for p in prompts.prompts
                        },
                        "prompt": [m.content.text for m in got.messages],
                    }
                )
            )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
