// client.mjs - drives corpus-gw's MCP server with the official MCP
// TypeScript SDK client (@modelcontextprotocol/sdk) over Streamable HTTP
// or stdio, the way Claude Code and other agents do (issue 5, acceptance
// 1; issue 13, acceptance 1 and 2).
//
//   node client.mjs http://127.0.0.1:PORT/mcp
//   node client.mjs --stdio CORPUS_GW mcp --workspace DIR ...
//
// It connects (initialize + notifications/initialized, and the SDK's GET
// probe, which must get 405), pings, lists the tools, checks that each has
// an input schema and readOnlyHint, and calls EVERY listed tool with
// arguments that make sense against the workspace that
// tests/integration/test_mcp_sdk.sh writes: a root wiki with "Use Postgres"
// and a sub-guild "api".  A tool this script does not know is still called,
// with its required arguments filled in from its schema; one whose
// arguments cannot be guessed fails the run (add it to ARGS below).  Then
// it checks that a tool failure is a result with isError true and that an
// unknown tool is a JSON-RPC error.  Every tool must have a title and an
// outputSchema, and every answer's structuredContent is checked against
// that schema here (Ajv, besides the SDK's own check), its `text` must be
// the compact rendering (shorter than the answer's JSON); the pages must
// be listed and readable as resources.  Exits 0 when all holds, 1
// otherwise; it must never pass without talking to the server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import AjvModule from 'ajv';

const Ajv = AjvModule.default ?? AjvModule;
const ajv = new Ajv({ strict: false, allErrors: true });
const stdio = process.argv[2] === '--stdio';
const url = process.argv[2];
if (!url || (stdio && process.argv.length < 4)) {
  console.error('usage: node client.mjs http://127.0.0.1:PORT/mcp\n' +
    '       node client.mjs --stdio COMMAND [ARGS...]');
  process.exit(2);
}

// The whole run gets 120 s; a hung server fails the test, never hangs it.
const watchdog = setTimeout(() => {
  console.error('FAIL: timed out after 120 s');
  process.exit(1);
}, 120000);

// Issue 5's tools: all must be listed (any further tool is called too).
const REQUIRED = ['corpus_search', 'corpus_read', 'corpus_list',
  'corpus_links', 'corpus_grep', 'corpus_map', 'corpus_peek',
  'corpus_resolve', 'corpus_status'];
const WORD = 'Postgres';

let failures = 0;
function check(cond, what) {
  if (cond) {
    console.log(`ok   ${what}`);
  } else {
    console.log(`FAIL ${what}`);
    failures++;
  }
}

// Arguments per tool; `uri` is a search hit's uri.
function argsFor(tool, uri) {
  const ARGS = {
    corpus_search: { q: WORD, limit: 5 },
    corpus_read: { uri },
    corpus_peek: { uris: [uri] },
    corpus_links: { uri },
    corpus_resolve: { name: 'Use Postgres' },
    corpus_list: { limit: 10 },
    corpus_map: {},
    corpus_grep: { pattern: WORD },
    corpus_status: {},
  };
  const props = tool.inputSchema?.properties ?? {};
  const args = { ...(ARGS[tool.name] ?? {}) };
  // Keep only what the schema declares (an argument was renamed: the
  // required ones are filled in below, or the run fails).
  for (const k of Object.keys(args))
    if (!(k in props)) delete args[k];
  for (const k of tool.inputSchema?.required ?? []) {
    if (k in args) continue;
    const p = props[k] ?? {};
    if (['q', 'query', 'pattern', 'text'].includes(k)) args[k] = WORD;
    else if (k === 'uri') args[k] = uri;
    else if (k === 'uris') args[k] = [uri];
    else if (k === 'name') args[k] = 'Use Postgres';
    else if (Array.isArray(p.enum)) args[k] = p.enum[0];
    else throw new Error(`no argument known for ${tool.name}.${k}: ` +
      'add the tool to ARGS in tests/mcp/client.mjs');
  }
  return args;
}

function textOf(res) {
  const t = (res.content ?? []).find((c) => c.type === 'text');
  return t ? t.text : null;
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// Per-tool checks of what came back, beyond the common ones.
function checkAnswer(name, sc) {
  const s = JSON.stringify(sc);
  switch (name) {
  case 'corpus_read':
    check(s.includes('We chose Postgres'), 'corpus_read returns the body');
    break;
  case 'corpus_peek':
    check(Array.isArray(sc.pages) && sc.pages.length === 1 &&
      sc.pages[0].title === 'Use Postgres', 'corpus_peek returns the page');
    break;
  case 'corpus_links':
    check(s.includes('caching.md'), 'corpus_links lists [[caching]]');
    break;
  case 'corpus_resolve':
    check(s.includes('use-postgres.md'), 'corpus_resolve finds the page');
    break;
  case 'corpus_grep':
    check(s.includes('We chose Postgres'), 'corpus_grep finds the line');
    break;
  case 'corpus_status':
    check(s.includes('"api"') && s.includes('"root"'),
      'corpus_status reports both sources');
    break;
  case 'corpus_list':
  case 'corpus_map':
    check(s.includes('use-postgres.md') || s.includes('Use Postgres'),
      `${name} shows the page`);
    break;
  default:
    break;
  }
}

async function callOk(client, tool, args) {
  const res = await client.callTool({ name: tool.name, arguments: args });
  const text = textOf(res);
  check(res.isError !== true,
    `${tool.name} ${JSON.stringify(args)} succeeds` +
    (res.isError ? `: ${text}` : ''));
  check(typeof text === 'string' && text.length > 0,
    `${tool.name} has a text content`);
  check(isObject(res.structuredContent),
    `${tool.name} has structuredContent`);
  if (isObject(tool.outputSchema) && isObject(res.structuredContent)) {
    const valid = ajv.validate(tool.outputSchema, res.structuredContent);
    check(valid, `${tool.name} structuredContent matches its outputSchema` +
      (valid ? '' : `: ${ajv.errorsText(ajv.errors)}`));
    // The text is the compact rendering, not the answer's JSON (read
    // returns the page itself, whose text may be as long as its JSON).
    if (tool.name !== 'corpus_read')
      check(typeof text === 'string' &&
        text.length < JSON.stringify(res.structuredContent, null, 2).length &&
        !text.trimStart().startsWith('{'),
      `${tool.name} text is the compact rendering`);
  }
  return res.structuredContent ?? {};
}

// The pages as resources: listed, read by uri, a template for cg:// uris,
// and a missing page is a JSON-RPC error.
async function checkResources(client, uri) {
  check(client.getServerCapabilities()?.resources !== undefined,
    'initialize: resources capability');
  const { resources } = await client.listResources();
  const page = (resources ?? []).find((r) => r.uri === uri);
  check(page !== undefined && page.mimeType === 'text/markdown' &&
    page.title === 'Use Postgres', 'resources/list has the page');
  const read = await client.readResource({ uri });
  check(read.contents?.[0]?.uri === uri &&
    /We chose Postgres/.test(read.contents?.[0]?.text ?? ''),
  'resources/read returns the page text');
  const { resourceTemplates } = await client.listResourceTemplates();
  check((resourceTemplates ?? []).some((t) =>
    /^cg:\/\/\{workspace\}/.test(t.uriTemplate)),
  'resources/templates/list has the cg:// template');
  let missing = false;
  try {
    await client.readResource({ uri: uri.replace(/[^/]+$/, 'nope.md') });
  } catch (e) {
    missing = true;
  }
  check(missing, 'resources/read of a missing page is an error');
}

async function main() {
  const client = new Client({ name: 'corpus-gw-sdk-test', version: '1.0.0' });
  const transport = stdio
    ? new StdioClientTransport({ command: process.argv[3],
      args: process.argv.slice(4), stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  check(client.getServerVersion()?.name === 'corpus-gw',
    'initialize: serverInfo.name is corpus-gw');
  check(client.getServerCapabilities()?.tools !== undefined,
    'initialize: tools capability');
  check(typeof client.getInstructions() === 'string',
    'initialize: instructions');
  await client.ping();
  check(true, 'ping');

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  console.log(`tools: ${names.join(' ')}`);
  for (const n of REQUIRED)
    check(names.includes(n), `tools/list has ${n}`);
  for (const t of tools) {
    check(isObject(t.inputSchema) && t.inputSchema.type === 'object',
      `${t.name} has an object inputSchema`);
    check(t.annotations?.readOnlyHint === true, `${t.name} readOnlyHint`);
    check(typeof t.description === 'string' && t.description.length > 20,
      `${t.name} has a description`);
    check(typeof t.title === 'string' && t.title.length > 0,
      `${t.name} has a title`);
    check(isObject(t.outputSchema) && t.outputSchema.type === 'object',
      `${t.name} has an object outputSchema`);
  }
  const search = tools.find((t) => t.name === 'corpus_search');
  check(/lexical/i.test(search?.description ?? ''),
    'corpus_search says it is lexical');
  check((search?.inputSchema?.required ?? []).includes('q'),
    'corpus_search marks q required');
  const grep = tools.find((t) => t.name === 'corpus_grep');
  check(/never-miss|exhaustive/i.test(grep?.description ?? ''),
    'corpus_grep says it is the never-miss path');

  // Search first: its hit gives the uri the page tools need.
  let uri = null;
  if (search) {
    const sc = await callOk(client, search, argsFor(search, null));
    const hit = (sc.hits ?? []).find((h) => /use-postgres\.md$/.test(h.path));
    check(hit !== undefined && /^cg:\/\//.test(hit.uri),
      'corpus_search finds use-postgres.md with a cg:// uri');
    uri = hit?.uri ?? null;
  }
  if (uri === null)
    throw new Error('no uri from corpus_search: cannot call the page tools');
  for (const t of tools) {
    if (t === search) continue;
    checkAnswer(t.name, await callOk(client, t, argsFor(t, uri)));
  }

  await checkResources(client, uri);

  // A tool failure is a result with isError, not a protocol error.
  const bad = await client.callTool({
    name: 'corpus_read',
    arguments: { uri: uri.replace(/[^/]+$/, 'no-such-page.md') },
  });
  check(bad.isError === true && typeof textOf(bad) === 'string',
    'corpus_read of a missing page: isError true with a text');
  const bogus = await client.callTool({
    name: 'corpus_read', arguments: { uri: 'cg://nowhere/x/../../etc/passwd' },
  });
  check(bogus.isError === true, 'corpus_read of a bogus uri: isError true');
  const wrongArg = await client.callTool({
    name: 'corpus_search', arguments: { q: WORD, bogus: 1 },
  });
  check(wrongArg.isError === true && /bogus/.test(textOf(wrongArg) ?? ''),
    'corpus_search with an unknown argument: isError naming it');
  let rejected = false;
  try {
    await client.callTool({ name: 'corpus_nope', arguments: {} });
  } catch (e) {
    rejected = true;
  }
  check(rejected, 'an unknown tool is a JSON-RPC error');

  await client.close();
}

try {
  await main();
} catch (e) {
  console.log(`FAIL ${e?.stack ?? e}`);
  failures++;
}
clearTimeout(watchdog);
console.log(failures === 0 ? 'PASS' : `${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
