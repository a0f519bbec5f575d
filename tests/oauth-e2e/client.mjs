// The checks of tests/oauth-e2e/run.sh: a generated server with --auth-issuer, against real
// access tokens of oidc-provider (issuer.mjs), with the TypeScript SDK's own OAuth client
// (@modelcontextprotocol/sdk 1.32.2: Client + StreamableHTTPClientTransport +
// ClientCredentialsProvider) and with plain fetch.
//
// usage: node client.mjs CONFIG_JSON
//   CONFIG_JSON {"sdk": SDK_DIR, "secret", "issuerA", "issuerB", "serverA", "serverB", "other",
//                "logs": [server log files]}
//   serverA/serverB: the MCP endpoints (http://127.0.0.1:PORT/mcp) of the servers started with
//   --auth-issuer issuerA / issuerB and --auth-scopes mcp; other: a resource of issuer A that is
//   not this server.
// Prints one line per check ("ok   NAME" / "FAIL NAME: DETAIL"), then "N passed, M failed";
// exits 1 if any check failed.
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';

const cfg = JSON.parse(process.argv[2]);
const sdkVersion = JSON.parse(readFileSync(`${cfg.sdk}/package.json`, 'utf8')).version;
const load = (path) => import(pathToFileURL(`${cfg.sdk}/dist/esm/${path}`).href);
const { Client } = await load('client/index.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
const { ClientCredentialsProvider } = await load('client/auth-extensions.js');

const ALL = 'mcp mcp:read weather';
const SESSION_ERA = '2025-11-25';
const STATELESS = '2026-07-28';
const FORECAST_ARGS = { location: { region: 'eu', city: 'Paris' }, days: 2 };
const FORECAST_STUB = '`Weather.Forecast/Daily` is not implemented yet';

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) passed += 1;
  else failed += 1;
  const why = typeof detail === 'string' ? detail : JSON.stringify(detail);
  console.log(ok ? `ok   ${name}` : `FAIL ${name}: ${why}`);
}
// A check whose body may throw: the exception is its failure.
async function attempt(name, body) {
  try {
    const [ok, detail] = await body();
    check(name, ok, detail);
  } catch (error) {
    check(name, false, `threw ${error?.stack ?? error}`);
  }
}

const tokensSeen = new Set();
const claimsOf = (jwt) => {
  const [header, payload] = jwt.split('.').slice(0, 2).map((part) =>
    JSON.parse(Buffer.from(part, 'base64url').toString()));
  return { header, payload };
};
const origin = (url) => new URL(url).origin;
const metadataUrl = (server) => `${origin(server)}/.well-known/oauth-protected-resource/mcp`;

// A token straight from the issuer's token endpoint (client_secret_basic, RFC 8707 resource).
async function token(issuer, { resource, scope = ALL, client = 'mcp-e2e' } = {}) {
  const form = new URLSearchParams({ grant_type: 'client_credentials', scope });
  if (resource) form.set('resource', resource);
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client}:${cfg.secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: form,
  });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`token endpoint: ${response.status} ${JSON.stringify(body)}`);
  tokensSeen.add(body.access_token);
  return body.access_token;
}

// One JSON-RPC POST to an MCP endpoint; the answer's status, headers and JSON body (the first
// message of an SSE answer).
async function post(server, message, { bearer, session, version = SESSION_ERA, headers = {} } = {}) {
  const response = await fetch(server, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(session ? { 'mcp-session-id': session } : {}),
      ...headers,
    },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  let body = null;
  try {
    body = response.headers.get('content-type')?.startsWith('text/event-stream')
      ? JSON.parse(text.split('\n').find((line) => line.startsWith('data: ')).slice(6))
      : JSON.parse(text);
  } catch {
    body = text;
  }
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate') ?? '',
    session: response.headers.get('mcp-session-id'),
    body,
  };
}
const initialize = (id = 1) => ({
  jsonrpc: '2.0', id, method: 'initialize',
  params: { protocolVersion: SESSION_ERA, capabilities: {}, clientInfo: { name: 'oauth-e2e', version: '1' } },
});
const callTool = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
// initialize + notifications/initialized with `bearer`: the session id.
async function openSession(server, bearer) {
  const init = await post(server, initialize(), { bearer });
  if (init.status !== 200 || !init.session) throw new Error(`initialize: ${JSON.stringify(init)}`);
  await post(server, { jsonrpc: '2.0', method: 'notifications/initialized' }, { bearer, session: init.session });
  return init.session;
}

// A fetch that records every request the SDK makes (MCP and OAuth alike).
function recordingFetch() {
  const log = [];
  const record = async (url, init = {}) => {
    const headers = new Headers(init.headers);
    const form = init.body instanceof URLSearchParams ? new URLSearchParams(init.body)
      : typeof init.body === 'string' && /urlencoded/.test(headers.get('content-type') ?? '')
        ? new URLSearchParams(init.body) : undefined;
    const response = await fetch(url, init);
    log.push({
      method: init.method ?? 'GET',
      url: String(url instanceof Request ? url.url : url),
      status: response.status,
      scheme: headers.get('authorization')?.split(' ')[0] ?? null,
      form: form && Object.fromEntries([...form.keys()].map((key) => [key, form.getAll(key).join(' ')])),
      challenge: response.headers.get('www-authenticate'),
    });
    return response;
  };
  return { log, fetch: record };
}

// An SDK client whose transport does the client-credentials grant by itself.
async function sdkClient(server, issuer, scope) {
  const recorder = recordingFetch();
  const provider = new ClientCredentialsProvider({
    clientId: 'mcp-e2e', clientSecret: cfg.secret, scope, expectedIssuer: issuer,
  });
  const transport = new StreamableHTTPClientTransport(new URL(server), {
    authProvider: provider, fetch: recorder.fetch,
  });
  const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
  await client.connect(transport);
  const access = provider.tokens()?.access_token;
  if (access) tokensSeen.add(access);
  return { client, provider, log: recorder.log, access };
}

// What the echo handler answers (the script's echo returns the text and the principal).
function echoed(result) {
  if (result?.isError) {
    throw new Error(`echo answered an error (a binary not built by run.sh, its echo unimplemented?): ${JSON.stringify(result)}`);
  }
  return JSON.parse(result.content[0].text);
}
const principalOk = (answer, issuer, server, scopes) => isDeepStrictEqual(answer, {
  text: 'hi', subject: 'mcp-e2e', scopes, iss: issuer, aud: server, client_id: 'mcp-e2e',
});

const timer = setTimeout(() => {
  console.log('FAIL the checks timed out after 90 s');
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(1);
}, 90_000);

check('the SDK is the pinned one (1.32.2) and ships ClientCredentialsProvider',
  sdkVersion === '1.32.2' && typeof ClientCredentialsProvider === 'function', sdkVersion);

// ---- a. the SDK's own OAuth flow, on server A (RFC 8414 metadata, RS256) ---------------------
let sdkA;
await attempt('a. SDK client connects to A, getting its token by itself (client_credentials)', async () => {
  sdkA = await sdkClient(cfg.serverA, cfg.issuerA, ALL);
  return [Boolean(sdkA.access), sdkA.log];
});
if (sdkA) {
  const { log } = sdkA;
  const first = log.findIndex((entry) => entry.url === cfg.serverA && entry.method === 'POST');
  const prm = log.findIndex((entry) => entry.url === metadataUrl(cfg.serverA));
  const asMeta = log.findIndex((entry) => entry.url === `${cfg.issuerA}/.well-known/oauth-authorization-server`);
  const tokenAt = log.findIndex((entry) => entry.url === `${cfg.issuerA}/token`);
  const retry = log.findIndex((entry, i) => i > tokenAt && entry.url === cfg.serverA && entry.method === 'POST');
  check('a. discovery: 401 with resource_metadata → Protected Resource Metadata → RFC 8414 metadata → token',
    first === 0 && log[first].status === 401 &&
      log[first].challenge?.includes(`resource_metadata="${metadataUrl(cfg.serverA)}"`) &&
      prm > first && log[prm].status === 200 && asMeta > prm && log[asMeta].status === 200 &&
      tokenAt > asMeta && log[tokenAt].status === 200,
    log);
  check('a. token request: client_credentials, client_secret_basic, resource = the server (RFC 8707), the scopes',
    tokenAt >= 0 && log[tokenAt].method === 'POST' && log[tokenAt].scheme === 'Basic' &&
      isDeepStrictEqual(log[tokenAt].form, { grant_type: 'client_credentials', scope: ALL, resource: cfg.serverA }),
    log[tokenAt]);
  check('a. the initialize is retried with the bearer token and accepted',
    retry > tokenAt && log[retry].scheme === 'Bearer' && log[retry].status === 200, log);
  const { header, payload } = claimsOf(sdkA.access);
  check('a. the token is an RS256 JWT access token (at+jwt) of issuer A for this server',
    header.alg === 'RS256' && header.typ === 'at+jwt' && payload.iss === cfg.issuerA &&
      payload.aud === cfg.serverA && payload.scope === ALL && payload.sub === 'mcp-e2e',
    { header, payload });

  await attempt('a. listTools', async () => {
    const { tools } = await sdkA.client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    return [isDeepStrictEqual(names, ['echo', 'list_units', 'weather_forecast']), names];
  });
  await attempt('a. callTool echo: the handler sees the principal of the token', async () => {
    const answer = echoed(await sdkA.client.callTool({ name: 'echo', arguments: { text: 'hi' } }));
    return [principalOk(answer, cfg.issuerA, cfg.serverA, ['mcp', 'mcp:read', 'weather']), answer];
  });
  await attempt('a. callTool weather_forecast (contract scopes mcp:read weather) reaches its handler', async () => {
    const result = await sdkA.client.callTool({ name: 'weather_forecast', arguments: FORECAST_ARGS });
    return [result.isError === true && result.content?.[0]?.text === FORECAST_STUB, result];
  });
  await sdkA.client.close();
}

await attempt('a. SDK client with the scopes "mcp mcp:read": weather_forecast is not listed (hideUnauthorized), echo works, calling weather_forecast is refused (403)', async () => {
  const narrow = await sdkClient(cfg.serverA, cfg.issuerA, 'mcp mcp:read');
  try {
    const { tools } = await narrow.client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    if (!isDeepStrictEqual(names, ['echo', 'list_units'])) {
      return [false, { listed: names }];
    }
    const answer = echoed(await narrow.client.callTool({ name: 'echo', arguments: { text: 'hi' } }));
    let refusal;
    try {
      refusal = await narrow.client.callTool({ name: 'weather_forecast', arguments: FORECAST_ARGS });
    } catch (error) {
      refusal = error;
    }
    const forbidden = narrow.log.find((entry) => entry.status === 403);
    return [principalOk(answer, cfg.issuerA, cfg.serverA, ['mcp', 'mcp:read']) &&
      refusal instanceof Error && refusal.code === 403 &&
      forbidden?.challenge?.includes('error="insufficient_scope"'), { answer, refusal: String(refusal), forbidden }];
  } finally {
    await narrow.client.close();
  }
});

// ---- the SDK on server B: issuer B has no RFC 8414 document (OpenID discovery only), ES256 ----
await attempt('a. SDK client on B: discovery falls back to openid-configuration; ES256 token; echo', async () => {
  const sdkB = await sdkClient(cfg.serverB, cfg.issuerB, ALL);
  try {
    const urls = sdkB.log.map((entry) => `${entry.status} ${entry.url}`);
    const answer = echoed(await sdkB.client.callTool({ name: 'echo', arguments: { text: 'hi' } }));
    return [urls.includes(`404 ${cfg.issuerB}/.well-known/oauth-authorization-server`) &&
      urls.includes(`200 ${cfg.issuerB}/.well-known/openid-configuration`) &&
      claimsOf(sdkB.access).header.alg === 'ES256' &&
      principalOk(answer, cfg.issuerB, cfg.serverB, ['mcp', 'mcp:read', 'weather']), { urls, answer }];
  } finally {
    await sdkB.client.close();
  }
});

// ---- e. no token ------------------------------------------------------------------------------
await attempt('e. no token: 401 with resource_metadata and scope in WWW-Authenticate', async () => {
  const answer = await post(cfg.serverA, initialize());
  return [answer.status === 401 &&
    answer.challenge === `Bearer resource_metadata="${metadataUrl(cfg.serverA)}", scope="mcp"`, answer];
});
await attempt('e. Protected Resource Metadata names issuer A (both paths)', async () => {
  const expected = {
    resource: cfg.serverA, authorization_servers: [cfg.issuerA],
    scopes_supported: ['mcp', 'mcp:read', 'weather', 'files'], bearer_methods_supported: ['header'],
  };
  const documents = [];
  for (const url of [metadataUrl(cfg.serverA), `${origin(cfg.serverA)}/.well-known/oauth-protected-resource`]) {
    const response = await fetch(url);
    documents.push({ status: response.status, body: await response.json() });
  }
  return [documents.every((d) => d.status === 200 && isDeepStrictEqual(d.body, expected)), documents];
});

// ---- b. tokens that must be refused ----------------------------------------------------------
await attempt('b. a token of issuer A for another resource: 401 invalid_token', async () => {
  const foreign = await token(cfg.issuerA, { resource: cfg.other });
  const answer = await post(cfg.serverA, initialize(), { bearer: foreign });
  return [claimsOf(foreign).payload.aud === cfg.other && answer.status === 401 &&
    answer.challenge.includes('error="invalid_token"'), answer];
});
await attempt('b. a token of issuer B (for server B) at server A: 401 invalid_token', async () => {
  const foreign = await token(cfg.issuerB, { resource: cfg.serverB });
  const answer = await post(cfg.serverA, initialize(), { bearer: foreign });
  return [answer.status === 401 && answer.challenge.includes('error="invalid_token"'), answer];
});
await attempt('b. a token of issuer A with its signature altered: 401 invalid_token', async () => {
  const good = await token(cfg.issuerA, { resource: cfg.serverA });
  const [h, p, s] = good.split('.');
  const bytes = Buffer.from(s, 'base64url');
  bytes[10] ^= 0x01;
  const answer = await post(cfg.serverA, initialize(), { bearer: `${h}.${p}.${bytes.toString('base64url')}` });
  return [answer.status === 401 && answer.challenge.includes('error="invalid_token"'), answer];
});

// ---- c. a token for this resource, plain fetch ------------------------------------------------
const good = await token(cfg.issuerA, { resource: cfg.serverA });
let session;
await attempt('c. a token for this resource: initialize 200 with a session id', async () => {
  const answer = await post(cfg.serverA, initialize(), { bearer: good });
  session = answer.session;
  await post(cfg.serverA, { jsonrpc: '2.0', method: 'notifications/initialized' }, { bearer: good, session });
  return [answer.status === 200 && Boolean(session) && answer.body?.result?.protocolVersion === SESSION_ERA, answer];
});
await attempt('c. tools/list and tools/call echo in that session', async () => {
  const list = await post(cfg.serverA, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { bearer: good, session });
  const call = await post(cfg.serverA, callTool(3, 'echo', { text: 'hi' }), { bearer: good, session });
  return [list.status === 200 && list.body?.result?.tools?.length === 3 && call.status === 200 &&
    principalOk(echoed(call.body?.result), cfg.issuerA, cfg.serverA, ['mcp', 'mcp:read', 'weather']), { list, call }];
});
await attempt('c. the session is refused (404) to a token of another client (mcp-e2e-2)', async () => {
  const other = await token(cfg.issuerA, { resource: cfg.serverA, client: 'mcp-e2e-2' });
  const answer = await post(cfg.serverA, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, { bearer: other, session });
  const own = await openSession(cfg.serverA, other);
  return [answer.status === 404 && Boolean(own), answer];
});

// ---- d. a token lacking a scope ---------------------------------------------------------------
await attempt('d. scopes "mcp mcp:read": weather_forecast 403 insufficient_scope naming its scopes', async () => {
  const narrow = await token(cfg.issuerA, { resource: cfg.serverA, scope: 'mcp mcp:read' });
  const own = await openSession(cfg.serverA, narrow);
  const echo = await post(cfg.serverA, callTool(5, 'echo', { text: 'hi' }), { bearer: narrow, session: own });
  const forecast = await post(cfg.serverA, callTool(6, 'weather_forecast', FORECAST_ARGS), { bearer: narrow, session: own });
  return [echo.status === 200 && forecast.status === 403 &&
    forecast.challenge.includes('error="insufficient_scope"') &&
    forecast.challenge.includes('scope="mcp mcp:read weather"'), { echo, forecast }];
});
await attempt('d. scope "mcp" only: echo 403 insufficient_scope (the document\'s scope mcp:read)', async () => {
  const bare = await token(cfg.issuerA, { resource: cfg.serverA, scope: 'mcp' });
  const own = await openSession(cfg.serverA, bare);
  const echo = await post(cfg.serverA, callTool(7, 'echo', { text: 'hi' }), { bearer: bare, session: own });
  return [echo.status === 403 && echo.challenge.includes('error="insufficient_scope"') &&
    echo.challenge.includes('scope="mcp mcp:read"'), echo];
});
await attempt('d. without the scope mcp: 403 insufficient_scope on initialize (--auth-scopes mcp)', async () => {
  const none = await token(cfg.issuerA, { resource: cfg.serverA, scope: 'weather' });
  const answer = await post(cfg.serverA, initialize(), { bearer: none });
  return [answer.status === 403 && answer.challenge.includes('error="insufficient_scope"'), answer];
});

// ---- the stateless 2026-07-28 era -------------------------------------------------------------
const meta = { 'io.modelcontextprotocol/protocolVersion': STATELESS, 'io.modelcontextprotocol/clientCapabilities': {} };
const stateless = (id, method, params, name) => [
  { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } },
  { version: STATELESS, headers: { 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) } },
];
await attempt('2026-07-28: server/discover with the token', async () => {
  const [message, options] = stateless(10, 'server/discover', {});
  const answer = await post(cfg.serverA, message, { ...options, bearer: good });
  return [answer.status === 200 && answer.body?.result?.resultType === 'complete' &&
    answer.body.result.supportedVersions?.includes(STATELESS), answer];
});
await attempt('2026-07-28: tools/call echo with the token; without it 401', async () => {
  const [message, options] = stateless(11, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }, 'echo');
  const call = await post(cfg.serverA, message, { ...options, bearer: good });
  const anonymous = await post(cfg.serverA, message, options);
  return [call.status === 200 && call.body?.result?.resultType === 'complete' &&
    principalOk(echoed(call.body.result), cfg.issuerA, cfg.serverA, ['mcp', 'mcp:read', 'weather']) &&
    anonymous.status === 401 && anonymous.challenge.includes('resource_metadata='), { call, anonymous }];
});

// ---- what the servers themselves fetched, and what they logged ---------------------------------
const fetchedBy = async (issuer) => {
  const requests = await (await fetch(`${issuer}/_requests`)).json();
  // The MCP server sends no User-Agent; Node's fetch (the SDK, this script) sends "node".
  return requests.filter((entry) => entry.agent === null && entry.method === 'GET')
    .map((entry) => `${entry.status} ${entry.path}`);
};
await attempt('server A found its keys through RFC 8414 metadata (jwks_uri)', async () => {
  const seen = await fetchedBy(cfg.issuerA);
  return [seen[0] === '200 /.well-known/oauth-authorization-server' && seen[1] === '200 /jwks' &&
    !seen.includes('200 /.well-known/openid-configuration'), seen];
});
await attempt('server B fell back to openid-configuration (RFC 8414 404) to find its keys', async () => {
  const seen = await fetchedBy(cfg.issuerB);
  return [isDeepStrictEqual(seen.slice(0, 3), [
    '404 /.well-known/oauth-authorization-server', '200 /.well-known/openid-configuration', '200 /jwks',
  ]), seen];
});
await attempt('no access token appears in the servers\' logs', async () => {
  const logs = cfg.logs.map((path) => readFileSync(path, 'utf8')).join('\n');
  const leaked = [...tokensSeen].filter((t) => logs.includes(t) || logs.includes(t.split('.')[2]));
  return [tokensSeen.size >= 8 && leaked.length === 0, { tokens: tokensSeen.size, leaked: leaked.length }];
});

clearTimeout(timer);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
