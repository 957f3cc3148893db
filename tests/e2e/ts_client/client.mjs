// A client that is not ours: the TypeScript MCP SDK against the example server.
//
//   node client.mjs stdio <command> [args...]   spawn the server and talk over stdio
//   node client.mjs http <url>                  talk streamable HTTP to a running server
//                                               (with the bearer token in $MCP_TOKEN, if set)
//
// Prints one JSON object with what the server answered; exits 1 on any failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...rest] = process.argv.slice(2);

function transportFor() {
  if (mode === "stdio") {
    return new StdioClientTransport({
      command: target,
      args: rest,
      env: { PYTHONPATH: process.env.PYTHONPATH ?? "" },
      stderr: "inherit",
    });
  }
  if (mode === "http") {
    const token = process.env.MCP_TOKEN;
    const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
    return new StreamableHTTPClientTransport(new URL(target), { requestInit });
  }
  throw new Error(`unknown mode ${mode}: use stdio or http`);
}

const textOf = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text).join("");

async function main() {
  const client = new Client({ name: "ts-e2e-client", version: "1.0.0" });
  await client.connect(transportFor());
  try {
    const listed = await client.listTools();
    const echo = await client.callTool({ name: "echo", arguments: { text: "from node", times: 2 } });
    const boom = await client.callTool({ name: "boom", arguments: {} });
    const progress = [];
    const slow = await client.callTool(
      { name: "slow", arguments: { seconds: 0.2, steps: 2 } },
      undefined,
      { onprogress: (p) => progress.push([p.progress, p.total, p.message]) },
    );
    const summary = {
      server: client.getServerVersion(),
      tools: listed.tools.map((t) => ({
        name: t.name,
        readOnlyHint: t.annotations?.readOnlyHint ?? null,
        hasOutputSchema: Boolean(t.outputSchema),
      })),
      echo: { text: textOf(echo), structured: echo.structuredContent ?? null, isError: echo.isError ?? false },
      boom: { text: textOf(boom), isError: boom.isError ?? false },
      slow: { text: textOf(slow), progress },
    };
    process.stdout.write(JSON.stringify(summary) + "\n");
  } finally {
    await client.close();
  }
}

main().catch((error) => {
  process.stderr.write(`ts client failed: ${error?.stack ?? error}\n`);
  process.exit(1);
});
