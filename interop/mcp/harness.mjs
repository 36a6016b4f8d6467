// Shared pieces of wield's MCP interop tests: starting `wield mcp`, a stdio
// transport over a child process, a transport tap that records every frame,
// and arguments for every tool.
//
// Environment:
//   WIELD_BIN         the wield binary to test (required)
//   WIELD_MCP_FRAMES  a directory; when set, every session's frames are
//                     written there as <name>.jsonl ({"dir":"send"|"recv","frame":...})
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';

export const wieldBin = process.env.WIELD_BIN;
if (!wieldBin) throw new Error('WIELD_BIN must name the wield binary to test');

/** A 1x1 PNG, in the workspace as pixel.png: read_file answers with it as image content. */
export const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/**
 * A fresh workspace with a few files for the file tools. Unless bare, its
 * .wield/settings.json allows run_shell_command, write_file and replace,
 * which otherwise need an approval nobody can give over MCP.
 */
export function makeWorkspace({ bare = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'wield-mcp-interop-'));
  writeFileSync(join(dir, 'hello.txt'), 'hello from the interop test\nsecond line\n');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'notes.md'), '# notes\nneedle here\n');
  writeFileSync(join(dir, 'pixel.png'), Buffer.from(PIXEL_PNG, 'base64'));
  if (!bare) {
    mkdirSync(join(dir, '.wield'));
    writeFileSync(join(dir, '.wield', 'settings.json'),
      JSON.stringify({ permissions: { allow: ['run_shell_command', 'write_file', 'replace'] } }));
  }
  return dir;
}

/** Records frames of one session to WIELD_MCP_FRAMES/<name>.jsonl. */
export function frameRecorder(name) {
  const dir = process.env.WIELD_MCP_FRAMES;
  if (!dir) return () => {};
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.jsonl`);
  writeFileSync(file, '');
  return (direction, frame) => appendFileSync(file, JSON.stringify({ dir: direction, frame }) + '\n');
}

/**
 * Tap wraps a transport and records every frame it sends and receives. It
 * passes everything else through, including the protocol version an HTTP
 * transport needs for its headers.
 */
export class Tap {
  constructor(inner, record) {
    this.inner = inner;
    this.record = record;
  }
  async start() {
    this.inner.onmessage = (msg, extra) => {
      this.record('recv', msg);
      this.onmessage?.(msg, extra);
    };
    this.inner.onerror = (err) => this.onerror?.(err);
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }
  async send(msg, opts) {
    this.record('send', msg);
    return this.inner.send(msg, opts);
  }
  async close() {
    return this.inner.close();
  }
  get sessionId() {
    return this.inner.sessionId;
  }
  setProtocolVersion(v) {
    this.inner.setProtocolVersion?.(v);
  }
}

/**
 * ChildStdio is an MCP transport over a child process the test owns, so the
 * test can close standard input and then watch how the process exits.
 */
export class ChildStdio {
  constructor(child) {
    this.child = child;
    this.buf = new ReadBuffer();
    this.writes = Promise.resolve();
  }
  async start() {
    this.child.stdout.on('data', (chunk) => {
      this.buf.append(chunk);
      for (;;) {
        let msg;
        try {
          msg = this.buf.readMessage();
        } catch (err) {
          this.onerror?.(err);
          continue;
        }
        if (msg === null) break;
        this.onmessage?.(msg);
      }
    });
    this.child.on('close', () => this.onclose?.());
  }
  // send queues writes, so that a thousand concurrent calls wait for one
  // drain at a time.
  send(msg) {
    this.writes = this.writes.then(async () => {
      if (!this.child.stdin.write(serializeMessage(msg))) await once(this.child.stdin, 'drain');
    });
    return this.writes;
  }
  /** close ends standard input only; the process is expected to exit by itself. */
  async close() {
    await this.writes.catch(() => {});
    this.child.stdin.end();
  }
}

/**
 * startWield runs `wield mcp ARGS` in workdir. It collects standard error
 * and resolves exited with {code, signal} when the process ends. The
 * workspace is the test's own, so its settings are trusted (--trust).
 */
export function startWield(args, workdir) {
  const child = spawn(wieldBin, ['--workdir', workdir, '--trust', 'mcp', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, stderr: () => stderr };
}

/** startWieldHTTP starts `wield mcp --http 127.0.0.1:0 ARGS` and returns its URL. */
export async function startWieldHTTP(args, workdir) {
  const w = startWield(['--http', '127.0.0.1:0', ...args], workdir);
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wield mcp --http did not say where it listens:\n${w.stderr()}`)), 10000);
    const look = () => {
      const m = /serving MCP on (http:\/\/127\.0\.0\.1:\d+)/.exec(w.stderr());
      if (m) {
        clearTimeout(timer);
        w.child.stderr.off('data', look);
        resolve(m[1] + '/mcp');
      }
    };
    w.child.stderr.on('data', look);
    w.exited.then((e) => reject(new Error(`wield mcp --http exited (${JSON.stringify(e)}):\n${w.stderr()}`)));
  });
  return { ...w, url };
}

/** withTimeout rejects when p takes longer than ms. */
export function withTimeout(p, ms, what) {
  let timer;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]);
}

/** fileIs asserts that the file rel of the workspace holds want. */
function fileIs(workdir, rel, want) {
  assert.equal(readFileSync(join(workdir, rel), 'utf8'), want, `${rel} after the call`);
}

// validArgs holds schema-valid arguments for every tool wield builds in,
// and what the answer must be: for a tool that can succeed in the test's
// workspace without a session, succeeds, the text it contains and a check
// of what it did (check(workdir, result)); for one that cannot, the error
// that says why. A tool without an entry fails the test.
export const validArgs = {
  echo: { args: { text: 'hello over MCP' }, succeeds: true, text: 'hello over MCP' },
  read_file: { args: { path: 'hello.txt' }, succeeds: true, text: 'hello from the interop test' },
  list_directory: { args: { path: '.' }, succeeds: true, text: 'hello.txt' },
  glob: { args: { pattern: '**/*.md' }, succeeds: true, text: 'notes.md' },
  search_file_content: { args: { pattern: 'needle' }, succeeds: true, text: 'needle here' },
  read_many_files: { args: { paths: ['sub/*.md'] }, succeeds: true, text: 'needle here' },
  run_shell_command: { args: { command: 'echo from-the-shell' }, succeeds: true, text: 'from-the-shell' },
  // The workspace's settings allow the two editing tools (see makeWorkspace):
  // what they say they did, they did.
  replace: {
    args: { path: 'sub/notes.md', old_string: '# notes', new_string: '# edited notes' }, succeeds: true, text: 'notes.md',
    check: (workdir) => fileIs(workdir, 'sub/notes.md', '# edited notes\nneedle here\n'),
  },
  write_file: {
    args: { path: 'written.txt', content: 'written over MCP\n' }, succeeds: true, text: 'written.txt',
    check: (workdir) => fileIs(workdir, 'written.txt', 'written over MCP\n'),
  },
  // Nobody can answer over MCP: the tool says so.
  ask_user: { args: { question: 'Is anybody there?' }, error: /Nobody can answer questions in this run/ },
  shell_output: { args: { job_id: 'no-such-job' }, error: /there is no job "no-such-job"/ },
  // The session tools refuse without a session; their arguments are valid.
  get_session: { args: {}, error: /no session service here/ },
  write_todos: { args: { todos: [{ title: 'interop', status: 'pending' }] }, error: /no session service here/ },
  delete_todos: { args: {}, error: /no session service here/ },
  // No rule allows these, and nobody can approve them over MCP.
  shell_kill: { args: { job_id: 'no-such-job' }, error: /denied: needs approval/ },
  delete_session: { args: { session_id: 'no-such-session' }, error: /denied: needs approval/ },
  compress_session_turns: { args: { start_turn: 1, end_turn: 1, summary: 'nothing' }, error: /denied: needs approval/ },
  register_mcp_server: { args: { name: 'x', command: 'true' }, error: /denied: needs approval/ },
  // Plan mode and the todo list live in a session.
  enter_plan_mode: { args: { reason: 'interop' }, error: /plan mode works only inside a wield session/ },
  exit_plan_mode: { args: { plan: '# interop' }, error: /plan mode works only inside a wield session/ },
  todo: { args: { todos: [{ title: 'interop', status: 'pending' }] }, error: /no session service here/ },
  // The web asks by default; nobody can approve over MCP.
  web_fetch: { args: { url: 'https://example.com/' }, error: /denied: needs approval/ },
  web_search: { args: { query: 'interop' }, error: /denied: needs approval/ },
  // The test's workspace is no git repository: the read-only git tools say
  // so; the ones that change things need approval first.
  git_status: { args: {}, error: /not a git repository/i },
  git_diff: { args: {}, error: /not a git repository/i },
  git_log: { args: {}, error: /not a git repository/i },
  git_show: { args: {}, error: /not a git repository/i },
  git_blame: { args: { path: 'hello.txt' }, error: /not a git repository/i },
  git_branch: { args: {}, error: /not a git repository/i },
  git_add: { args: { paths: ['hello.txt'] }, error: /denied: needs approval/ },
  git_commit: { args: { message: 'interop' }, error: /denied: needs approval/ },
  git_checkout: { args: { branch: 'interop' }, error: /denied: needs approval/ },
  // GitHub: the reads need a repository (none here: no remote); the writes
  // need approval.
  github_get_repository: { args: {}, error: /no repository: give repo as owner\/name/ },
  github_get_issue: { args: { number: 1 }, error: /no repository/ },
  github_get_pull_request_checks: { args: { number: 1 }, error: /no repository/ },
  github_get_pull_request_diff: { args: { number: 1 }, error: /no repository/ },
  github_list_pull_requests: { args: {}, error: /no repository/ },
  github_search_issues: { args: { query: 'interop' }, error: /no repository/ },
  github_get_workflow_run: { args: {}, error: /give run_id .* or workflow/ },
  github_add_comment: { args: { number: 1, body: 'interop' }, error: /denied: needs approval/ },
  github_create_issue: { args: { title: 'interop' }, error: /denied: needs approval/ },
  github_create_pull_request: { args: { title: 'interop' }, error: /denied: needs approval/ },
  github_run_workflow: { args: { workflow: 'ci.yml' }, error: /denied: needs approval/ },
  // Memory: reading needs nothing; writing (and the memory tool) asks.
  search_memory: { args: { query: 'zzinteropzz' }, succeeds: true, text: 'No notes match' },
  read_memory: { args: { id: 'no-such-note' }, error: /memory note not found/ },
  save_memory: { args: { fact: 'interop', scope: 'project' }, error: /denied: needs approval/ },
  memory: { args: { command: 'view', path: '/memories' }, error: /denied: needs approval/ },
  // Transactions of changes change files (a revert), so they ask.
  begin_change: { args: { reason: 'interop' }, error: /denied: needs approval/ },
  end_change: { args: { outcome: 'keep' }, error: /denied: needs approval/ },
  // Code runs only after a person or a rule says so; no model to ask here.
  run_code: { args: { language: 'bash', code: 'echo hi' }, error: /denied: needs approval/ },
  ask_model: { args: { prompt: 'hi' }, error: /no model to ask/ },
  // Documents: indexing writes the index, so it asks; reading needs nothing.
  index_documents: { args: { paths: ['sub'], collection: 'default' }, error: /denied: needs approval/ },
  search_documents: { args: { query: 'needle', k: 3 }, succeeds: true, text: 'No documents are indexed yet' },
  list_documents: { args: {}, succeeds: true, text: 'No documents are indexed yet' },
  get_document: { args: { id: 'hello.txt' }, succeeds: true, text: 'hello from the interop test' },
  // Skills and plugins: none are installed in the test's workspace.
  activate_skill: { args: { name: 'pdf-forms' }, error: /no skills are set up in this run/ },
  list_skills: { args: {}, succeeds: true, text: 'No skills are installed' },
  skill_search: { args: { query: 'pdf' }, succeeds: true, text: 'No skill matches' },
  create_skill: { args: { name: 'lint-fix', description: 'Fixes lint findings.', body: 'Run the linter.' }, error: /denied: needs approval/ },
  list_plugins: { args: {}, succeeds: true, text: 'No plugins are installed' },
  debug_mcp_server: { args: {}, succeeds: true, text: 'no MCP servers configured' },
  // Environment variables: secrets by name are never shown; nobody can
  // give a value over MCP.
  get_env: { args: { name: 'OPENAI_API_KEY' }, error: /looks like a secret, so its value is not shown/ },
  request_env: { args: { name: 'DEPLOY_TOKEN', reason: 'interop' }, error: /nobody can give values in this run/ },
};

function typesOf(schema) {
  if (!schema || schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** deriveArgs builds the smallest arguments that satisfy a simple schema. */
export function deriveArgs(schema) {
  if (!schema || typeof schema !== 'object') return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('default' in schema) return schema.default;
  const types = typesOf(schema);
  if (types.includes('object') || schema.properties) {
    const out = {};
    for (const name of schema.required ?? []) out[name] = deriveArgs(schema.properties?.[name] ?? {});
    return out;
  }
  if (types.includes('string')) return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  if (types.includes('integer') || types.includes('number')) return schema.minimum ?? 1;
  if (types.includes('boolean')) return false;
  if (types.includes('array')) return [];
  if (types.includes('null')) return null;
  return 'x';
}

/**
 * wrongType returns valid arguments with one property given a value of the
 * wrong type, and that property's name; null when the schema has no
 * properties to get wrong.
 */
export function wrongType(schema, args) {
  const props = schema?.properties ?? {};
  const names = Object.keys(props);
  if (names.length === 0) return null;
  const name = names.find((n) => (schema.required ?? []).includes(n)) ?? names[0];
  const types = typesOf(props[name]);
  const bad = types.includes('string') ? 12345 : 'not the right type';
  return { args: { ...args, [name]: bad }, name };
}

/**
 * textOf returns the text a tool result gives the model: its first text
 * content. (A result with structured content repeats it as JSON text after.)
 */
export function textOf(res) {
  return (res.content ?? []).find((c) => c.type === 'text')?.text ?? '';
}
