// http_api.mjs - checks corpus-gw's HTTP API conventions against a live
// gateway (issue 13, acceptance 5); run by tests/integration/test_http_api.sh,
// which writes the workspace and the config and starts `corpus-gw serve`.
//
//   node http_api.mjs URL LOGFILE
//   env: CG_T_ALL (a token that sees everything, named all-team),
//        CG_T_API (a token granted only cg://acme/api/..., named api-team)
//
// - GET /v1/openapi.json is a valid OpenAPI 3.1 document
//   (@seriousme/openapi-schema-validator), and it matches the routes: every
//   path and method in it is called with valid arguments and answers a
//   status it lists, a 200 body valid against its schema (Ajv, JSON Schema
//   2020-12); a method it does not list answers 405; every route the
//   server answers (the tools from MCP tools/list, and a set of probes) is
//   in it.
// - POST /v1/search: the same answer as GET; 415, 400 and 413 as
//   api_body.h says.
// - offset/total: pages cut from one result neither repeat nor skip, total
//   counts the whole result; facets count the whole result, not the page.
// - A restricted token sees no source it cannot read in facets or
//   /metrics; /metrics needs a token.
// - /metrics: pages and bytes per source, requests per tool (HTTP and
//   MCP), build info with the /healthz version.
// - The access log (LOGFILE, the server's stderr): one line per request,
//   method, route, status, ms and the token's name, never a secret; a
//   hostile path is escaped.
// Exits 0 when all holds, 1 otherwise.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { strict as assert } from 'node:assert';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020Module from 'ajv/dist/2020.js';

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const [base, logFile] = process.argv.slice(2);
const ALL = process.env.CG_T_ALL;
const API = process.env.CG_T_API;
if (!base || !logFile || !ALL || !API) {
  console.error('usage: CG_T_ALL=.. CG_T_API=.. node http_api.mjs URL LOGFILE');
  process.exit(2);
}
const watchdog = setTimeout(() => {
  console.error('FAIL: the run took over 120 s');
  process.exit(1);
}, 120000);

async function call(path, { method = 'GET', token = ALL, body, type, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (type) h['Content-Type'] = type;
  const r = await fetch(base + path, { method, headers: h, body, redirect: 'manual' });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* metrics, empty */ }
  return { status: r.status, text, json, headers: r.headers };
}

// Sends text on a new connection; what comes back until it closes (5 s).
function rawRequest(text) {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(u.port), u.hostname, () => sock.write(text));
    let got = '';
    const t = setTimeout(() => { sock.destroy(); resolve(got); }, 5000);
    sock.on('data', (d) => { got += d.toString('latin1'); });
    sock.on('close', () => { clearTimeout(t); resolve(got); });
    sock.on('error', (e) => { clearTimeout(t); got ? resolve(got) : reject(e); });
  });
}

const postJson = (path, obj, opt = {}) =>
  call(path, { method: 'POST', type: 'application/json', body: JSON.stringify(obj), ...opt });

const qs = (args) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(args))
    for (const x of Array.isArray(v) ? v : [v]) p.append(k, String(x));
  return p.toString();
};

// --- OpenAPI -----------------------------------------------------------------

const doc = (await call('/v1/openapi.json')).json;
assert.ok(doc, 'GET /v1/openapi.json answers JSON');
{
  const res = await new Validator().validate(doc);
  assert.ok(res.valid, `the document validates: ${JSON.stringify(res.errors)}`);
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, (await call('/healthz')).json.version);
}

// Valid arguments for every tool, against the workspace the script writes.
const hit = (await call('/v1/search?q=widget&limit=1')).json.hits[0];
assert.ok(hit?.uri, 'a search for widget finds a page');
const ARGS = {
  search: { q: 'widget' }, read: { uri: hit.uri }, peek: { uri: hit.uri },
  links: { uri: hit.uri }, resolve: { name: 'Caching' }, list: {},
  grep: { pattern: 'Widget' }, map: {}, status: {},
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
const schemaOf = (resp) => {
  const r = resp.$ref ? doc.components.responses.Error : resp;
  const s = r.content?.['application/json']?.schema;
  return s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s;
};

// The search page's routes (web.h) with valid arguments.
const WEB = {
  'get /page': () => call(`/page?uri=${encodeURIComponent(hit.uri)}`),
  'get /': () => call('/?q=widget'),
  'post /token': () => call('/token', { method: 'POST', token: null,
    type: 'application/x-www-form-urlencoded', body: `token=${ALL}` }),
};
// What a valid call answers when it is not 200.
const EXPECT = { 'post /token': 303 };

async function callOperation(path, method) {
  if (path === '/mcp')
    return postJson('/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' });
  if (WEB[`${method} ${path}`])
    return WEB[`${method} ${path}`]();
  const tool = path.startsWith('/v1/') && path !== '/v1/openapi.json'
    ? path.slice(4) : null;
  if (tool) {
    assert.ok(ARGS[tool], `the test knows arguments for ${path} (add them to ARGS)`);
    return method === 'post' ? postJson(path, ARGS[tool])
      : call(`${path}?${qs(ARGS[tool])}`);
  }
  return call(path, { method: method.toUpperCase() });
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];
for (const [path, item] of Object.entries(doc.paths)) {
  for (const method of METHODS) {
    if (!item[method]) {
      const r = await call(path, { method: method.toUpperCase(), type: 'application/json', body: method === 'get' ? undefined : '{}' });
      assert.equal(r.status, 405, `${method} ${path} is not in the document, so it answers 405 (got ${r.status})`);
      continue;
    }
    const op = item[method];
    const r = await callOperation(path, method);
    const want = EXPECT[`${method} ${path}`] ?? 200;
    assert.equal(r.status, want, `${method} ${path} with valid arguments answers ${want} (got ${r.status} ${r.text.slice(0, 200)})`);
    assert.ok(op.responses[String(want)], `${method} ${path} documents ${want}`);
    const schema = op.responses['200'] && schemaOf(op.responses['200']);
    if (schema && r.json !== null) {
      const ok = ajv.validate(schema, r.json);
      assert.ok(ok, `${method} ${path}: the answer matches its schema: ${ajv.errorsText()}`);
    }
    if (op.security === undefined || op.security.length > 0) {
      // Every operation that needs a token says 401 and answers it.
      const r2 = await call(path, { method: method.toUpperCase(), token: null, type: method === 'post' ? 'application/json' : undefined, body: method === 'post' ? '{}' : undefined });
      assert.equal(r2.status, 401, `${method} ${path} without a token answers 401`);
      assert.ok(op.responses['401'], `${method} ${path} documents 401`);
    } else {
      assert.equal((await call(path, { token: null })).status, 200, `${path} needs no token`);
    }
  }
}

// Every route the server answers is in the document: every tool (MCP
// tools/list, the same table), and whatever of these probes is not a 404.
{
  const tools = (await postJson('/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list' })).json.result.tools;
  assert.ok(tools.length >= 9);
  for (const t of tools) {
    const name = t.name.replace(/^corpus_/, '');
    assert.ok(doc.paths[`/v1/${name}`]?.get, `/v1/${name} (tool ${t.name}) is in the document`);
    assert.ok(doc.paths[`/v1/${name}`]?.post, `POST /v1/${name} is in the document`);
  }
  const probes = ['/', '/index.html', '/v1', '/v1/', '/v1/search/', '/v2/search',
    '/mcp/', '/healthz/', '/metrics/x', '/v1/corpus_search', '/v1/openapi',
    '/openapi.json', '/v1/OPENAPI.json', '/readyz/x', '/favicon.ico'];
  for (const p of probes) {
    const r = await call(p);
    if (r.status !== 404)
      assert.ok(doc.paths[p], `${p} answers ${r.status}, so it must be in the document`);
    else
      assert.equal(r.json?.error?.code, 'not_found', `${p}: a 404 is a JSON error`);
  }
}

// --- POST /v1/search -----------------------------------------------------------

{
  const args = { q: 'widget', limit: 5, category: 'decision', source: ['root'] };
  const g = await call(`/v1/search?${qs(args)}`);
  const p = await postJson('/v1/search', args);
  assert.equal(p.status, 200);
  assert.deepEqual(p.json.hits.map((h) => h.uri), g.json.hits.map((h) => h.uri),
    'POST answers what GET answers for the same arguments');
  assert.ok(p.json.hits.length > 0);
  const charset = await postJson('/v1/search', args, { type: 'application/json; charset=utf-8' });
  assert.equal(charset.status, 200, 'a utf-8 charset parameter is accepted');

  const bad = [
    [{ method: 'POST', body: '{"q":"x"}' }, 415, 'unsupported_media_type'],
    [{ method: 'POST', type: 'text/plain', body: '{"q":"x"}' }, 415, 'unsupported_media_type'],
    [{ method: 'POST', type: 'application/json; charset=latin1', body: '{"q":"x"}' }, 415, 'unsupported_media_type'],
    [{ method: 'POST', type: 'application/json', body: '{"q":' }, 400, 'invalid_input'],
    [{ method: 'POST', type: 'application/json', body: '' }, 400, 'invalid_input'],
    [{ method: 'POST', type: 'application/json', body: '["q"]' }, 400, 'invalid_input'],
    [{ method: 'POST', type: 'application/json', body: '{"q":"a","q":"b"}' }, 400, 'invalid_input'],
    [{ method: 'POST', type: 'application/json', body: '{"q":"a","bogus":1}' }, 400, 'invalid_input'],
    [{ method: 'POST', type: 'application/json', body: '{"q":"a","limit":"ten"}' }, 400, 'invalid_input'],
  ];
  for (const [opt, status, code] of bad) {
    const r = await call('/v1/search', opt);
    assert.equal(r.status, status, `POST ${opt.type ?? '(no type)'} ${opt.body.slice(0, 30)} answers ${status} (got ${r.status} ${r.text.slice(0, 200)})`);
    assert.equal(r.json?.error?.code, code);
    assert.ok(r.json.error.message.length > 10, 'the error says why');
  }
  // Over 1 MiB declared: 413 before any body byte is sent (a raw socket:
  // fetch would fail writing the body the server never reads).
  const raw = await rawRequest('POST /v1/search HTTP/1.1\r\n' +
    `Host: ${new URL(base).host}\r\nAuthorization: Bearer ${ALL}\r\n` +
    'Content-Type: application/json\r\nContent-Length: 1100000\r\n' +
    'Connection: close\r\n\r\n');
  assert.match(raw, /^HTTP\/1\.1 413 /, `a body declared over 1 MiB answers 413: ${raw.slice(0, 100)}`);
  assert.match(raw, /"too_big"/);
  const mixed = await postJson('/v1/search?q=widget', { q: 'widget' });
  assert.equal(mixed.status, 400, 'a POST with a query string is refused');
  assert.match(mixed.json.error.message, /body/);
  const unknown = await postJson('/v1/nosuch', {});
  assert.equal(unknown.status, 404);
}

// --- offset, total, facets -------------------------------------------------------

{
  const all = (await call('/v1/search?q=widget&limit=100&total=true')).json;
  const uris = all.hits.map((h) => h.uri);
  assert.equal(all.total, uris.length);
  assert.equal(all.total_relation, 'eq');
  assert.ok(uris.length >= 14, `the fixture has at least 14 widget pages (got ${uris.length})`);
  assert.equal(all.next_offset, null);
  const paged = [];
  for (let off = 0; off < uris.length; off += 4) {
    const pg = (await call(`/v1/search?q=widget&limit=4&offset=${off}`)).json;
    assert.equal(pg.offset, off);
    assert.equal(pg.limit, 4);
    assert.equal(pg.total, uris.length, 'total is the whole result on every page');
    assert.equal(pg.next_offset, off + 4 < uris.length ? off + 4 : null);
    assert.equal(pg.evidence.hits_returned, pg.hits.length);
    paged.push(...pg.hits.map((h) => h.uri));
  }
  assert.deepEqual(paged, uris, 'pages concatenated are the whole result, in order, no repeat, no gap');
  const viaPost = (await postJson('/v1/search', { q: 'widget', limit: 4, offset: 4 })).json;
  assert.deepEqual(viaPost.hits.map((h) => h.uri), uris.slice(4, 8));
  const past = (await call(`/v1/search?q=widget&limit=4&offset=${uris.length}`)).json;
  assert.deepEqual(past.hits, [], 'an offset past the end gives no hits');
  assert.equal(past.total, uris.length);
  for (const q of ['offset=-1', 'offset=x', 'offset=499&limit=2', 'facets=bogus', 'facets=source,nope']) {
    const r = await call(`/v1/search?q=widget&${q}`);
    assert.equal(r.status, 400, `${q} is invalid input`);
  }
  assert.match((await call('/v1/search?q=widget&facets=bogus')).json.error.message, /valid: source/);

  // Facets over the whole result, not the page of 2.
  const f = (await call('/v1/search?q=widget&limit=2&facets=source,category&facets=tag&facets=confidence')).json;
  assert.equal(f.hits.length, 2);
  const count = (key) => {
    const m = {};
    for (const h of all.hits)
      for (const v of key(h)) m[v] = (m[v] ?? 0) + 1;
    return m;
  };
  assert.deepEqual(f.facets.source, count((h) => [`${h.workspace}/${h.source}`]));
  assert.deepEqual(f.facets.category, count((h) => (h.category ? [h.category] : [])));
  assert.deepEqual(f.facets.tag, count((h) => [...new Set(h.tags.map((t) => t.toLowerCase()))]));
  assert.deepEqual(f.facets.confidence, count((h) => (h.confidence ? [h.confidence] : [])));
  assert.ok(Object.keys(f.facets.source).length >= 2, 'the fixture spreads widget over two sources');
  const counts = Object.values(f.facets.category);
  assert.deepEqual(counts, [...counts].sort((a, b) => b - a), 'most frequent first');
  const pf = (await postJson('/v1/search', { q: 'widget', limit: 2, facets: ['source', 'category'] })).json;
  assert.deepEqual(pf.facets, { source: f.facets.source, category: f.facets.category });

  // A restricted token: its facets and totals hold only what it may read.
  const r = (await call('/v1/search?q=widget&limit=2&facets=source,workspace', { token: API })).json;
  assert.deepEqual(Object.keys(r.facets.source), ['acme/api']);
  assert.equal(r.total, f.facets.source['acme/api']);
  // (evidence is issue 15's finding 12, not this test's)
  assert.ok(!JSON.stringify([r.facets, r.hits]).includes('root'), 'no facet or hit names the root source');
}

// --- /metrics -----------------------------------------------------------------

const metric = (text, name, labels) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
};
{
  const anon = await call('/metrics', { token: null });
  assert.equal(anon.status, 401, '/metrics needs a token when tokens are configured');
  const before = (await call('/metrics')).text;
  for (let i = 0; i < 3; i++) await call(`/v1/search?q=widget${i}`);
  await postJson('/v1/search', { q: 'widget' });
  await postJson('/mcp', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'corpus_status', arguments: {} } });
  await postJson('/mcp', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
  const m = (await call('/metrics')).text;
  const delta = (name, labels) => (metric(m, name, labels) ?? 0) - (metric(before, name, labels) ?? 0);
  assert.equal(delta('corpus_gw_tool_requests_total', 'tool="search",interface="http"'), 4);
  assert.equal(delta('corpus_gw_tool_requests_total', 'tool="status",interface="mcp"'), 1);
  assert.equal(delta('corpus_gw_tool_requests_total', 'tool="unknown",interface="mcp"'), 1);
  assert.ok(!m.includes('no_such_tool'), 'an unknown tool name never becomes a label');
  const status = (await call('/v1/status')).json;
  for (const n of status.nodes)
    for (const s of n.sources) {
      assert.equal(metric(m, 'corpus_gw_source_pages', `source="${n.workspace}/${s.source}"`), s.pages);
      assert.equal(metric(m, 'corpus_gw_source_index_bytes', `source="${n.workspace}/${s.source}"`), s.db_bytes);
      assert.ok(s.db_bytes > 0);
      assert.ok(metric(m, 'corpus_gw_source_index_age_seconds', `source="${n.workspace}/${s.source}"`) >= 0);
    }
  // Corpus freshness: the age of the cache (published 2026-11-01) and the
  // last refresh's outcome (book's failed, notes' did not).
  const age = (Date.now() - Date.parse('2026-11-01T00:00:00Z')) / 1000;
  for (const id of ['book', 'notes'])
    assert.ok(Math.abs(metric(m, 'corpus_gw_corpus_cache_age_seconds', `source="acme/${id}"`) - age) < 120,
      `${id}'s cache age is the time since its cached_at`);
  assert.equal(metric(m, 'corpus_gw_corpus_refresh_ok', 'source="acme/book"'), 0);
  assert.equal(metric(m, 'corpus_gw_corpus_refresh_ok', 'source="acme/notes"'), 1);
  assert.equal(metric(m, 'corpus_gw_corpus_refresh_ok', 'source="acme/root"'), undefined, 'a wiki has no refresh');
  const version = (await call('/healthz')).json.version;
  assert.equal(metric(m, 'corpus_gw_build_info', `version="${version}"`), 1);
  assert.ok(metric(m, 'corpus_gw_node_outcomes_total', 'node="acme/root",outcome="ok"') > 0);

  const restricted = await call('/metrics', { token: API });
  assert.equal(restricted.status, 200);
  for (const hidden of ['root', 'book', 'notes'])
    assert.ok(!restricted.text.includes(hidden), `a restricted token sees no label of ${hidden}, which it cannot read`);
  assert.equal(metric(restricted.text, 'corpus_gw_source_pages', 'source="acme/api"'),
    (await call('/v1/status', { token: API })).json.nodes.flatMap((n) => n.sources)[0].pages);
  assert.equal(metric(restricted.text, 'corpus_gw_source_index_bytes', 'source="acme/api"'), undefined,
    'index bytes (which count hidden pages) are not shown to a restricted token');
}

// --- the access log ------------------------------------------------------------

{
  const mark = `/v1/search?q=accesslogmark`;
  // Only the lines written after this point; a line is written when its
  // request completes, and a tool call of an earlier block that its
  // client left may still complete (and log) among these, so the lines
  // are counted by kind, not read in order.
  const offset = readFileSync(logFile).length;
  for (let i = 0; i < 3; i++) await call('/healthz', { token: null });
  await call(mark);
  await call(mark, { token: API });
  await call(mark, { token: 'wrong-secret' });
  await call('/readyz');
  await call('/v1/x%22%20status=200%0Afake');
  // The line of the last request is written when it completes; poll.
  let log = '';
  for (let i = 0; i < 50 && !log.includes('%0Afake status=404'); i++) {
    log = readFileSync(logFile, 'utf8');
    await new Promise((r) => setTimeout(r, 100));
  }
  const lines = log.split('\n').filter((l) => l.includes(' info http request '));
  const ok = /^\S+ info http request method=(GET|POST|PUT|DELETE|PATCH|HEAD) route=\S+ status=\d{3} ms=\d+\.\d token=\S+$/;
  for (const l of lines) assert.match(l, ok, `an access-log line has every field: ${l}`);
  const fresh = readFileSync(logFile).subarray(offset).toString('utf8').split('\n');
  const count = (re) => fresh.filter((l) => re.test(l)).length;
  assert.equal(count(/route=\/healthz status=200 ms=\S+ token=-$/), 3, 'one line per request');
  assert.ok(count(/method=GET route=\/v1\/search status=200 ms=\S+ token=all-team$/) >= 1, 'the search line names its token');
  assert.equal(count(/method=GET route=\/v1\/search status=200 ms=\S+ token=api-team$/), 1, 'the api-team search: one line');
  assert.equal(count(/method=GET route=\/v1\/search status=401 ms=\S+ token=-$/), 1, 'a wrong secret: one line, no token name');
  assert.ok(count(/method=GET route=\/readyz status=200 ms=\S+ token=-$/) >= 1, 'the readyz line');
  assert.equal(count(/route=\/v1\/x%22%20status=200%0Afake status=404 /), 1, 'a hostile path is escaped');
  assert.ok(!log.includes(ALL) && !log.includes(API), 'no secret is ever logged');
  assert.ok(!log.includes('accesslogmark'), 'the query string is not logged');
  assert.ok(lines.length > 100, 'every request of this run was logged');
}

clearTimeout(watchdog);
console.log('PASS');
