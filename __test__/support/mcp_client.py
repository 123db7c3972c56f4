"""Drives `hashline mcp` with the official Python MCP client, as a host
written in Python would: initialize, list the tools, read, edit by a ref,
grep, and an edit from a stale ref. Prints what it got as one JSON object.

    python mcp_client.py PROJECT_DIR COMMAND [ARG...]
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def result(call):
    return {
        "isError": bool(call.is_error),
        "text": "".join(c.text for c in call.content if c.type == "text"),
        "structured": call.structured_content,
    }


async def main(project, command, args):
    server = StdioServerParameters(command=command, args=args, cwd=project)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await session.list_tools()
            tools = {
                t.name: {
                    "annotations": t.annotations.model_dump(by_alias=True, exclude_none=True) if t.annotations else None,
                    "outputSchema": t.output_schema,
                }
                for t in listed.tools
            }
            view = await session.call_tool("read", {"filePath": "f.txt"})
            lines = view.structured_content["lines"]
            edit = await session.call_tool(
                "edit",
                {"filePath": "f.txt", "operations": [{"op": "replace", "ref": lines[1]["ref"], "content": "B"}]},
            )
            grep = await session.call_tool("grep", {"pattern": "^[ac]$"})
            stale = await session.call_tool(
                "edit",
                {"filePath": "f.txt", "operations": [{"op": "delete", "ref": "2#AAA#BBB"}]},
            )
            print(
                json.dumps(
                    {
                        "protocolVersion": init.protocol_version,
                        "server": init.server_info.name,
                        "tools": tools,
                        "read": result(view),
                        "edit": result(edit),
                        "grep": result(grep),
                        "stale": result(stale),
                    }
                )
            )


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
