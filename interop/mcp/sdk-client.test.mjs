// Interop tests of `wield mcp` with the official TypeScript SDK client, over
// stdio and over streamable HTTP. Run by scripts/mcp-interop.sh:
//   node --test sdk-client.test.mjs   (with WIELD_BIN set)
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  PIXEL_PNG,
  ChildStdio,
  Tap,
  deriveArgs,
  frameRecorder,
  makeWorkspace,
  startWield,
  startWieldHTTP,
  textOf,
  validArgs,
  withTimeout,
  wrongType,
} from './harness.mjs';

const CONCURRENT_CALLS = 1000;

function newClient() {
  return new Client({ name: 'wield-interop', version: '1.0.0' });
}

// checkStructured checks a result's structured content: only a tool that
// declares an output schema sends it on success (the SDK client has already
// checked it against the schema), and then repeats it as JSON text.
function checkStructured(tool, res) {
  if (res.structuredContent === undefined || res.isError) return;
  assert.ok(tool.outputSchema, `${tool.name}: structuredContent without an outputSchema`);
  const copies = (res.content ?? []).filter((c) => c.type === 'text').filter((c) => {
    try {
      return JSON.stringify(JSON.parse(c.text)) === JSON.stringify(res.structuredContent);
    } catch {
      return false;
    }
  });
  assert.equal(copies.length, 1, `${tool.name}: structuredContent not repeated as JSON text: ${JSON.stringify(res.content)}`);
}

// checkTools runs the same checks over any connected client, whose server
// works in workdir.
function checkTools(getClient, workdir) {
  let tools;

  test('tools/list describes every tool', async () => {
    ({ tools } = await getClient().listTools());
    assert.ok(tools.length > 0, 'no tools listed');
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('echo'), `echo missing from ${names}`);
    assert.equal(new Set(names).size, names.length, 'duplicate tool names');
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', `${t.name}: inputSchema.type`);
      assert.ok(t.description, `${t.name}: no description`);
      assert.equal(typeof t.annotations?.readOnlyHint, 'boolean', `${t.name}: readOnlyHint`);
      assert.equal(typeof t.annotations?.destructiveHint, 'boolean', `${t.name}: destructiveHint`);
      assert.equal(typeof t.annotations?.openWorldHint, 'boolean', `${t.name}: openWorldHint`);
      if (t.outputSchema) assert.equal(t.outputSchema.type, 'object', `${t.name}: outputSchema.type`);
    }
    const echo = tools.find((t) => t.name === 'echo');
    assert.equal(echo.annotations.readOnlyHint, true, 'echo is read-only');
    assert.equal(echo.annotations.destructiveHint, false, 'echo is not destructive');
    assert.deepEqual(echo.outputSchema?.required, ['text'], 'echo declares its output');
  });

  test('every tool accepts valid arguments and does what it says', async (t) => {
    for (const tool of tools) {
      await t.test(tool.name, async () => {
        const fixture = validArgs[tool.name];
        assert.ok(fixture, `${tool.name}: no fixture in validArgs (harness.mjs): give its arguments and the answer to expect`);
        const res = await getClient().callTool({ name: tool.name, arguments: fixture.args });
        const text = textOf(res);
        assert.ok(!res.structuredContent?.violations, `${tool.name}: valid arguments rejected: ${text}`);
        assert.doesNotMatch(text, /invalid arguments/, `${tool.name}: valid arguments rejected`);
        checkStructured(tool, res);
        if (fixture.succeeds) {
          assert.equal(res.isError ?? false, false, `${tool.name} failed: ${text}`);
          assert.match(text, new RegExp(fixture.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
          fixture.check?.(workdir, res);
        } else {
          // A refusal by the world (no session, no approval) says why.
          assert.equal(res.isError, true, `${tool.name}: want a refusal, got: ${text}`);
          assert.match(text, fixture.error, `${tool.name}: the refusal`);
        }
      });
    }
  });

  test('every tool rejects invalid arguments with isError and every violation', async (t) => {
    for (const tool of tools) {
      await t.test(`${tool.name}: unknown property`, async () => {
        const res = await getClient().callTool({
          name: tool.name,
          arguments: { __not_a_wield_argument__: true },
        });
        assert.equal(res.isError, true, `${tool.name}: unknown property accepted: ${textOf(res)}`);
        assert.match(textOf(res), /invalid arguments/);
        assert.match(textOf(res), /__not_a_wield_argument__/);
        const required = tool.inputSchema.required ?? [];
        // The unknown property and each missing required one: all reported at
        // once, in the text, and as structuredContent by a tool that declares
        // no output schema (which the violations would not match).
        for (const name of required) assert.match(textOf(res), new RegExp(name), `${tool.name}: missing ${name} not reported`);
        if (tool.outputSchema) {
          assert.equal(res.structuredContent, undefined, `${tool.name}: structuredContent outside its outputSchema`);
          return;
        }
        const violations = res.structuredContent?.violations;
        assert.ok(Array.isArray(violations) && violations.length >= 1, 'no violations in structuredContent');
        assert.equal(violations.length >= (required.length > 0 ? 2 : 1), true,
          `${tool.name}: want every violation, got ${JSON.stringify(violations)}`);
      });
      const fixture = validArgs[tool.name] ?? { args: deriveArgs(tool.inputSchema) };
      const wrong = wrongType(tool.inputSchema, fixture.args);
      if (!wrong) continue;
      await t.test(`${tool.name}: wrong type for ${wrong.name}`, async () => {
        const res = await getClient().callTool({ name: tool.name, arguments: wrong.args });
        assert.equal(res.isError, true, `${tool.name}: wrong type accepted: ${textOf(res)}`);
        assert.ok(textOf(res).includes(`/${wrong.name}`), `${tool.name}: no violation at /${wrong.name}: ${textOf(res)}`);
        if (tool.outputSchema) return;
        const violations = res.structuredContent?.violations ?? [];
        assert.ok(violations.some((v) => v.pointer === `/${wrong.name}`),
          `${tool.name}: no violation at /${wrong.name}: ${JSON.stringify(violations)}`);
      });
    }
  });

  test('read_file of a PNG answers with the picture as image content', async () => {
    const res = await getClient().callTool({ name: 'read_file', arguments: { path: 'pixel.png' } });
    assert.equal(res.isError ?? false, false, textOf(res));
    assert.match(textOf(res), /pixel\.png is an image \(image\/png, 1×1/);
    const images = res.content.filter((c) => c.type === 'image');
    assert.equal(images.length, 1, JSON.stringify(res.content));
    assert.equal(images[0].mimeType, 'image/png');
    assert.equal(images[0].data, PIXEL_PNG);
  });

  test('an unknown tool is a protocol error', async () => {
    await assert.rejects(getClient().callTool({ name: 'no_such_tool', arguments: {} }), (err) => {
      assert.match(String(err.message), /no_such_tool|unknown tool|not found/i);
      return true;
    });
  });

  test(`${CONCURRENT_CALLS} concurrent calls get their own answers`, async () => {
    const calls = [];
    for (let i = 0; i < CONCURRENT_CALLS; i++) {
      calls.push(getClient().callTool({ name: 'echo', arguments: { text: `call-${i}` } }));
    }
    const results = await withTimeout(Promise.all(calls), 60000, 'concurrent calls');
    results.forEach((res, i) => {
      assert.equal(res.isError ?? false, false, `call ${i}: ${textOf(res)}`);
      assert.equal(textOf(res), `call-${i}`, `call ${i} got another call's answer`);
    });
  });
}

describe('stdio', () => {
  let w;
  let client;
  const workdir = makeWorkspace();

  before(async () => {
    w = startWield([], workdir);
    client = newClient();
    await withTimeout(client.connect(new Tap(new ChildStdio(w.child), frameRecorder('sdk-stdio'))), 10000, 'initialize');
  });
  after(() => {
    if (w.child.exitCode === null) w.child.kill('SIGKILL');
  });

  checkTools(() => client, workdir);

  test('logs go to stderr only, and the server exits 0 on EOF', async () => {
    // Leave calls in flight when standard input closes: they are answered first.
    const pending = [];
    for (let i = 0; i < 20; i++) pending.push(client.callTool({ name: 'echo', arguments: { text: `last-${i}` } }));
    await client.close();
    const results = await withTimeout(Promise.all(pending), 10000, 'calls in flight at EOF');
    results.forEach((res, i) => assert.equal(textOf(res), `last-${i}`));
    const { code, signal } = await withTimeout(w.exited, 10000, 'exit after EOF');
    assert.equal(signal, null, `killed by ${signal}; stderr:\n${w.stderr()}`);
    assert.equal(code, 0, `exit status; stderr:\n${w.stderr()}`);
  });
});

describe('permissions', () => {
  test('a tool that needs approval is denied over MCP, with the reason', async (t) => {
    const ws = makeWorkspace({ bare: true });
    const w = startWield([], ws);
    const client = newClient();
    await withTimeout(client.connect(new ChildStdio(w.child)), 10000, 'initialize');
    const { tools } = await client.listTools();
    if (!tools.some((x) => x.name === 'run_shell_command')) {
      t.diagnostic('run_shell_command is not served; nothing needs approval');
    } else {
      // touch writes, so it needs approval (echo and ls, which change
      // nothing and show no file's content, would run).
      const res = await client.callTool({ name: 'run_shell_command', arguments: { command: 'touch should-not-run' } });
      assert.equal(res.isError, true, textOf(res));
      assert.match(textOf(res), /denied/);
      assert.equal(existsSync(join(ws, 'should-not-run')), false, 'the denied command ran');
    }
    await client.close();
    assert.equal((await withTimeout(w.exited, 10000, 'exit after EOF')).code, 0, w.stderr());
  });
});

// Raw frames the SDK client would never send: the server must answer each
// as the spec says and keep serving.
describe('stdio, bad input', () => {
  test('malformed, unknown and premature messages get JSON-RPC errors', async () => {
    const w = startWield([], makeWorkspace());
    // Every frame but the deliberately malformed line is recorded.
    const record = frameRecorder('sdk-stdio-bad-input');
    const lines = [];
    let buf = '';
    w.child.stdout.setEncoding('utf8');
    w.child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const frame = JSON.parse(buf.slice(0, i));
        record('recv', frame);
        lines.push(frame);
        buf = buf.slice(i + 1);
      }
    });
    const send = (s) => {
      try {
        record('send', JSON.parse(s));
      } catch {
        // the malformed line
      }
      w.child.stdin.write(s + '\n');
    };
    send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'); // before initialize
    send('{this is not json');
    send(JSON.stringify({
      jsonrpc: '2.0', id: 2, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }));
    send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    send('{"jsonrpc":"2.0","id":3,"method":"no/such/method","params":{}}');
    send('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}');
    w.child.stdin.end();
    const { code } = await withTimeout(w.exited, 10000, 'exit after EOF');
    assert.equal(code, 0, w.stderr());
    const byId = new Map(lines.filter((l) => l.id !== null && l.id !== undefined).map((l) => [l.id, l]));
    assert.ok(byId.get(1)?.error, `tools/list before initialize: ${JSON.stringify(byId.get(1))}`);
    assert.ok(lines.some((l) => l.id === undefined && l.error?.code === -32700), `no parse error in ${JSON.stringify(lines)}`);
    assert.equal(byId.get(2)?.result?.protocolVersion, '2025-11-25');
    assert.equal(byId.get(3)?.error?.code, -32601, `unknown method: ${JSON.stringify(byId.get(3))}`);
    assert.equal(byId.get(4)?.result?.content?.[0]?.text, 'still here');
  });
});

for (const mode of [
  { name: 'http (JSON answers)', tag: 'sdk-http-json', args: ['--json-response'] },
  { name: 'http (SSE answers)', tag: 'sdk-http-sse', args: [] },
  { name: 'http (stateless)', tag: 'sdk-http-stateless', args: ['--stateless', '--json-response'] },
]) {
  describe(mode.name, () => {
    let w;
    let client;
    const workdir = makeWorkspace();

    before(async () => {
      w = await startWieldHTTP(mode.args, workdir);
      client = newClient();
      const transport = new StreamableHTTPClientTransport(new URL(w.url));
      await withTimeout(client.connect(new Tap(transport, frameRecorder(mode.tag))), 10000, 'initialize');
    });
    after(() => {
      if (w.child.exitCode === null) w.child.kill('SIGKILL');
    });

    checkTools(() => client, workdir);

    test('a foreign Origin is refused (DNS rebinding)', async () => {
      const res = await fetch(w.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          origin: 'http://evil.example.com',
          host: 'evil.example.com',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}`);
    });

    test('the server exits 0 on SIGTERM', async () => {
      await client.close();
      w.child.kill('SIGTERM');
      const { code, signal } = await withTimeout(w.exited, 10000, 'exit after SIGTERM');
      assert.equal(signal, null, `killed by ${signal}; stderr:\n${w.stderr()}`);
      assert.equal(code, 0, `exit status; stderr:\n${w.stderr()}`);
    });
  });
}
