// Records a real MCP session (not a test): the official SDK client talks to `memdag mcp` on a
// store over stdio, and every JSON-RPC line that crosses the pipe is printed, client lines
// marked `>`, server lines `<`.
//
//   node tests/mcp/transcript.mjs STORE (--user U | --all-users) [--thread T]
//
// Needs the memdag CLI and the component, found as in mcp.test.mjs.
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';

const [store, ...rest] = process.argv.slice(2);
if (!store) throw new Error('usage: node tests/mcp/transcript.mjs STORE (--user U | --all-users) [--thread T]');
const target = process.env.CARGO_TARGET_DIR || join(homedir(), '.cache/memdag-target');
const bin = process.env.MEMDAG_BIN || join(target, 'debug/memdag');
const component = process.env.MEMDAG_COMPONENT || join(target, 'wasm32-wasip2/release/memdag_component.wasm');

/** A stdio transport that prints each line it sends and receives. */
class LoggedStdio {
  constructor(command, args, env) {
    this.command = command;
    this.args = args;
    this.env = env;
  }

  async start() {
    this.child = spawn(this.command, this.args, { env: this.env, stdio: ['pipe', 'pipe', 'inherit'] });
    let buffered = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!line.trim()) continue;
        console.log(`< ${line}`);
        this.onmessage?.(JSON.parse(line));
      }
    });
    this.child.on('exit', () => this.onclose?.());
  }

  async send(message) {
    const line = JSON.stringify(message);
    console.log(`> ${line}`);
    this.child.stdin.write(`${line}\n`);
  }

  async close() {
    this.child.stdin.end();
  }
}

const env = { ...process.env, MEMDAG_COMPONENT: component };
const client = new Client({ name: 'transcript', version: '1.0.0' });
await client.connect(new LoggedStdio(bin, ['--store', store, 'mcp', ...rest], env));
await client.listTools();
await client.callTool({ name: 'recall', arguments: { query: 'what is left on the PR?', budget_tokens: 300 } });
await client.callTool({ name: 'search', arguments: { query: 'why did the token refresh fail?', k: 2 } });
await client.callTool({ name: 'remember', arguments: { text: 'Lin prefers small fixes with a test' } });
await client.callTool({ name: 'memories', arguments: { query: 'fixes' } });
await client.listResources();
await client.callTool({ name: 'no_such_tool', arguments: {} }).catch(() => {});
await client.close();
