// A client nobody here wrote: the official TypeScript MCP SDK drives
// `chronicle mcp` through the session of repl/mcpserver/mcp_test.go.
//
//   node session.mjs /path/to/chronicle /path/to/archive.db
//
// The archive is testdata/samples ingested as `chronicle ingest --db DB
// testdata/samples` (repl/mcpserver/ts_client_test.go prepares it).
// Client.listTools() parses the listing with the SDK's zod schemas (a tool
// whose schema is not an object schema fails the whole listing) and
// compiles every outputSchema with the SDK's ajv validator; callTool then
// validates each structuredContent against it and throws on a mismatch.
// Each step prints one line; the exit status is 0 only if every step
// passed.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

const [bin, archive] = process.argv.slice(2);
if (!bin || !archive) {
  console.error('usage: node session.mjs /path/to/chronicle /path/to/archive.db');
  process.exit(2);
}

const ALICE = 'testdata/samples/alice-bob-en.txt';
const AHMED = 'testdata/samples/ahmed-khalid-ar.txt';
const TOOLS = ['check_claims', 'docs', 'entity', 'find', 'query', 'settle', 'show', 'stats', 'verify'];

class Failure extends Error {}

function check(cond, what) {
  if (!cond) throw new Failure(what);
}

// sorted is v as JSON with object keys sorted: equal values, equal text
// (the server decodes canonical lines into Go maps, whose keys it sorts).
function sorted(v) {
  if (Array.isArray(v)) return `[${v.map(sorted).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${sorted(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function eq(got, want, what) {
  check(sorted(got) === sorted(want), `${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

let step = 0;
let doing = 'connect';
function ok(line) {
  step++;
  console.log(`ok ${step} ${line}`);
}

const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--db', archive], stderr: 'pipe' });
let serverStderr = '';
transport.stderr?.on('data', (b) => {
  serverStderr += b.toString();
});
const client = new Client({ name: 'ts-client', version: '1.0.0' });

// call calls a tool that must succeed; the SDK has validated its
// structuredContent against the tool's outputSchema before it returns.
async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text);
  check(!res.isError, `${name}: a tool error: ${text.join(' | ')}`);
  check(res.structuredContent && typeof res.structuredContent === 'object', `${name}: no structured content`);
  check(text.length >= 1 && text[0].length > 0, `${name}: no text summary`);
  return { out: res.structuredContent, summary: text[0] };
}

// refused calls a tool that must not succeed: a thrown protocol error or a
// tool error; it returns the message.
async function refused(name, args) {
  let res;
  try {
    res = await client.callTool({ name, arguments: args });
  } catch (err) {
    check(!(err instanceof Failure), err.message);
    return `protocol error: ${err.message}`;
  }
  const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join(' | ');
  check(res.isError === true, `${name} ${JSON.stringify(args)}: want an error, got ${text}`);
  return `tool error: ${text}`;
}

async function session() {
  await client.connect(transport);
  const info = client.getServerVersion();
  eq(info?.name, 'chronicle', 'server name');
  ok(`connected to ${info.name} ${info.version} as ts-client`);

  doing = 'listTools';
  // tools/list: zod parses every tool, the SDK compiles every outputSchema.
  const { tools } = await client.listTools();
  eq(tools.map((t) => t.name).sort(), TOOLS, 'tools');
  const ajv = new AjvJsonSchemaValidator();
  for (const t of tools) {
    check(t.description.includes('never claims truth'), `${t.name}: description`);
    eq(t.inputSchema.type, 'object', `${t.name} input schema type`);
    check(t.outputSchema && t.outputSchema.type === 'object', `${t.name}: no object outputSchema`);
    // The client must have cached a validator: otherwise callTool would
    // check nothing and this session would prove nothing.
    check(typeof client.getToolOutputValidator(t.name) === 'function', `${t.name}: the SDK cached no output validator`);
    ajv.getValidator(t.inputSchema); // input schemas must compile too
  }
  ok(`listTools: ${tools.length} tools, every input and output schema compiled (${tools.map((t) => t.name).join(', ')})`);

  doing = 'docs';
  let { out } = await call('docs', {});
  eq(out.documents.length, 2, 'docs: documents');
  const names = out.documents.flatMap((d) => d.names).sort();
  eq(names, [AHMED, ALICE], 'docs: names');
  for (const d of out.documents) {
    check(/^[0-9a-f]{64}$/.test(d.document_sha256), `docs: sha256 ${d.document_sha256}`);
    eq(d.uri, `chronicle://doc/${d.document_sha256}`, 'docs: uri');
  }
  check(/^claim-result\/ts-client\/[^/]+-1\/1$/.test(out.resultId), `docs: resultId ${out.resultId}`);
  const runId = out.resultId.split('/')[2];
  ok(`docs: 2 documents, result ${out.resultId}`);

  doing = 'show';
  ({ out } = await call('show', { document: AHMED, from: 2, to: 4 }));
  eq(out.lines.map((l) => l.line), [2, 3, 4], 'show: lines');
  for (const l of out.lines) check(l.byte_end >= l.byte_start && typeof l.text === 'string', `show: line ${l.line}`);
  eq(out.label, AHMED, 'show: label');
  ok(`show: lines 2-4 of ${out.label}`);

  doing = 'find';
  // find on one document (claimable) and across the archive
  ({ out } = await call('find', { terms: 'Saud', document: ALICE }));
  const findId = out.resultId;
  eq(JSON.parse(out.canonical), out.result, 'find: result is canonical decoded');
  eq(out.result.total_matching_lines, 3, 'find: matching lines');
  check(out.hits === undefined, 'find with a document: no hits');
  ok(`find Saud in ${ALICE}: ${out.result.status}, result ${findId}`);
  ({ out } = await call('find', { terms: 'Saud' }));
  check(Array.isArray(out.hits) && out.hits.length >= 1, 'find across the archive: hits');
  for (const h of out.hits) eq(JSON.parse(h.canonical), h.result, 'find hit: result is canonical decoded');
  const findReceipt = out.receipt;
  ok(`find Saud across the archive: ${out.hits.length} documents`);

  doing = 'query';
  ({ out } = await call('query', { document: ALICE, question: 'Did Alice repay Bob?' }));
  eq(out.result.status, 'PARTIAL', 'query: status');
  eq(JSON.parse(out.canonical), out.result, 'query: result is canonical decoded');
  check(/^[0-9a-f]{64}$/.test(out.receiptId), 'query: receiptId');
  const queryId = out.resultId;
  const queryReceipt = out.receipt;
  ok(`query settlement: ${out.result.status}, result ${queryId}, receipt ${out.receiptId.slice(0, 12)}`);
  ({ out } = await call('query', { document: ALICE, question: '@claim\tAlice\towns\tBook' }));
  const claimId = out.resultId;
  ok(`query @claim: ${out.result.status}, result ${claimId}`);

  doing = 'settle and entity';
  ({ out } = await call('settle', { question: 'Did Alice repay Bob?' }));
  check(typeof out.result.status === 'string' && out.document_sha256 === undefined, 'settle: result');
  const settleReceipt = out.receipt;
  ok(`settle: ${out.result.status}`);
  ({ out } = await call('entity', { name: 'Saud' }));
  check(out.hits.length >= 2, `entity: ${out.hits.length} hits`);
  for (const h of out.hits) eq(JSON.parse(h.canonical), h.event, 'entity hit: event is canonical decoded');
  const entityReceipt = out.receipt;
  ok(`entity Saud: ${out.hits.length} events`);

  doing = 'verify';
  // verify the receipts this session returned, and a changed one
  for (const [what, r] of [['query', queryReceipt], ['find', findReceipt], ['settle', settleReceipt], ['entity', entityReceipt]]) {
    ({ out } = await call('verify', { receipt: r }));
    eq(out.verdict, 'VALID', `verify ${what} receipt`);
  }
  ({ out } = await call('verify', { receipt: queryReceipt.replace('kind:QUERY', 'kind:FIND') }));
  eq(out.verdict, 'INVALID', 'verify a changed receipt');
  check(out.problem, 'verify: a problem');
  ok('verify: query, find, settle and entity receipts VALID; a changed one INVALID');

  doing = 'check_claims';
  // check_claims: one supported, one contradicted, one unverified
  const claim = (n, result, rule, value) =>
    JSON.stringify({ claim: n, standing: 'fact', iteration: 0, declaredOn: 'answer', declaredResult: result, declaredRule: rule, declaredValue: value });
  ({ out } = await call('check_claims', {
    claims: [
      claim(1, queryId, 'chronicle.settlement.status', 'PARTIAL'),
      claim(2, queryId, 'chronicle.settlement.status', 'SETTLED'),
      claim(3, claimId, 'chronicle.claim.status', 'EXACT_STATED'),
      claim(4, findId, 'chronicle.find.lines', 3),
    ],
  }));
  eq(out.rows.map((r) => [r.outcome, r.reason]),
    [['supported', 'no-conflict'], ['contradicted', 'conflict'], ['unverified', 'unresolved-result'], ['supported', 'no-conflict']], 'check_claims: rows');
  eq([out.supported, out.contradicted, out.unverified], [2, 1, 1], 'check_claims: counts');
  eq([out.namespace, out.runId], ['ts-client', runId], 'check_claims: check identity');
  out.rows.forEach((r, i) => eq(r.claimId, `claim-verification/ts-client/${runId}/${i + 1}`, 'check_claims: claimId'));
  eq(out.rows[0].declaredResult, queryId, 'check_claims: declaredResult');
  for (const r of out.rows) JSON.parse(r.row);
  check(out.nextRunId && out.nextRunId !== runId, 'check_claims: nextRunId');
  ok(`check_claims: ${out.supported} supported, ${out.contradicted} contradicted, ${out.unverified} unverified; next run ${out.nextRunId}`);

  doing = 'resources';
  const { resources } = await client.listResources();
  eq(resources.length, 2, 'resources');
  const alice = resources.find((r) => r.name === ALICE);
  check(alice && alice.uri.startsWith('chronicle://doc/'), 'resources: alice');
  const { contents } = await client.readResource({ uri: alice.uri });
  check(contents[0].text.startsWith('     1  Opening prose about Alice and Bob.\n'), `readResource: ${JSON.stringify(contents[0].text.slice(0, 60))}`);
  ok(`resources: ${resources.length} listed, read ${alice.uri} (${contents[0].text.split('\n').length - 1} lines)`);

  doing = 'hostile calls';
  let msg = await refused('no_such_tool', {});
  check(msg.includes('no_such_tool'), `unknown tool: ${msg}`);
  ok(`unknown tool refused (${msg})`);
  msg = await refused('query', { document: 7, question: true });
  ok(`query with wrong argument types refused (${msg})`);
  msg = await refused('check_claims', { claims: 'not a list' });
  ok(`check_claims with a string for claims refused (${msg})`);
  msg = await refused('query', { document: 'nosuch', question: 'Did Alice repay Bob?' });
  check(msg.includes('chronicle query: "nosuch": no such document'), `unknown document: ${msg}`);
  ok(`query of an unknown document refused (${msg})`);

  doing = 'malformed lines';
  // Raw lines on the server's stdin beside the client's own, while a call
  // is in flight: a line that is not JSON gets a parse error (-32700) and
  // one that is no JSON-RPC message an invalid request (-32600), both with
  // id null as JSON-RPC 2.0 says; the call in flight is still answered.
  // The SDK reports a response it cannot match to a request through
  // onerror (its schema wants no id rather than id null) and goes on.
  const raw = transport._process;
  check(raw?.stdin && raw?.stdout, 'the stdio transport exposes no child process');
  let seen = '';
  const tap = (b) => {
    seen += b.toString();
  };
  raw.stdout.on('data', tap);
  const clientErrors = [];
  client.onerror = (err) => clientErrors.push(err);
  const inFlight = client.callTool({ name: 'query', arguments: { document: ALICE, question: 'Did Alice repay Bob?' } });
  raw.stdin.write('not json\n{"jsonrpc":"2.0"}\n');
  const res = await inFlight;
  check(!res.isError && res.structuredContent?.result?.status === 'PARTIAL', `the call in flight: ${JSON.stringify(res.content)}`);
  const refusals = () => seen.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)).filter((m) => m.id === null && m.error);
  for (let i = 0; i < 100 && refusals().length < 2; i++) await new Promise((r) => setTimeout(r, 50));
  eq(refusals().map((m) => m.error.code), [-32700, -32600], 'the answers to the raw lines');
  raw.stdout.off('data', tap);
  ({ out } = await call('docs', {}));
  eq(out.documents.length, 2, 'docs after the raw lines');
  ok(`malformed lines answered (${refusals().map((m) => m.error.message).join('; ')}); the call in flight answered, the session goes on (${clientErrors.length} reported by the SDK)`);

  doing = 'ping';
  await client.ping();
  ok('ping after the hostile calls and the malformed lines');
}

try {
  await session();
  await client.close();
  console.log(`PASS ${step} steps`);
  process.exit(0);
} catch (err) {
  // One line: a ZodError (a listing or result the SDK's schemas reject)
  // carries a multi-line JSON message.
  const reason = `${err instanceof Failure ? '' : `${err?.constructor?.name ?? 'error'}: `}${err?.message ?? err}`.replace(/\s+/g, ' ');
  console.log(`FAIL at ${doing} after ${step} steps: ${reason}`);
  if (serverStderr) console.log(`server stderr: ${serverStderr.trim().replace(/\s+/g, ' ')}`);
  try {
    await client.close();
  } catch {}
  process.exit(1);
}
