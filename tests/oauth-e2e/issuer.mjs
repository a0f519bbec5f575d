// Two authorization servers played by oidc-provider (pinned by ./package-lock.json), both plain
// http on 127.0.0.1, for tests/oauth-e2e/run.sh.
//
//   A  RS256, a key made at start; serves both metadata documents (RFC 8414
//      /.well-known/oauth-authorization-server and /.well-known/openid-configuration).
//      Resource servers: the MCP server A and a foreign resource (OTHER).
//      Clients: mcp-e2e and mcp-e2e-2 (client_credentials, client_secret_basic).
//   B  ES256, another key; /.well-known/oauth-authorization-server answers 404, so a client of
//      B must fall back to /.well-known/openid-configuration. Resource server: the MCP server B.
//      Client: mcp-e2e.
//
// Access tokens are JWTs (RFC 9068, typ at+jwt) whose `aud` is the resource indicator the
// client asked for (RFC 8707; without one, the issuer's MCP server), with the scopes the client
// asked for among "mcp mcp:read weather".
//
// Every HTTP request each issuer receives is recorded, and `GET /_requests` (a test-only path)
// answers the list: [{method, path, status, agent, authorization}] (authorization: the scheme
// only), so the checks can see which documents the MCP server itself fetched (it sends no
// User-Agent; Node's fetch sends "node").
//
// usage: node issuer.mjs NODE_MODULES_DIR CONFIG_JSON
//   NODE_MODULES_DIR  where `npm ci` of ./package-lock.json installed oidc-provider
//   CONFIG_JSON {"a": {"port", "resources": [...]}, "b": {"port", "resources": [...]},
//                "secret": "..."}
// Prints one line "ready" on stdout once both listen.
import { createServer } from 'node:http';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, configJson] = process.argv.slice(2);
const config = JSON.parse(configJson);
const { default: Provider, errors } = await import(
  pathToFileURL(join(modules, 'oidc-provider/lib/index.js')).href
);
const SCOPES = ['mcp', 'mcp:read', 'weather'];
const RFC8414 = '/.well-known/oauth-authorization-server';

function signingKey(kind, alg, kid) {
  const { privateKey } =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
}

function provider({ issuer, key, alg, resources, clients }) {
  const known = new Set(resources);
  return new Provider(issuer, {
    clients: clients.map((client_id) => ({
      client_id,
      client_secret: config.secret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: alg,
      scope: SCOPES.join(' '),
    })),
    jwks: { keys: [key] },
    scopes: ['openid', 'offline_access', ...SCOPES],
    cookies: { keys: [randomBytes(32).toString('hex')] },
    ttl: { AccessToken: 600, ClientCredentials: 600 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // No `resource` parameter: a token for this issuer's MCP server.
        defaultResource: async (_ctx, _client, oneOf) => oneOf ?? resources[0],
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (!known.has(indicator)) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
          return {
            scope: SCOPES.join(' '),
            audience: indicator,
            accessTokenFormat: 'jwt',
            accessTokenTTL: 600,
            jwt: { sign: { alg } },
          };
        },
      },
    },
  });
}

function serve(name, { port, resources }, kind, alg, clients, hideRfc8414) {
  const issuer = `http://127.0.0.1:${port}`;
  const oidc = provider({ issuer, key: signingKey(kind, alg, `${name}-${alg}`), alg, resources, clients });
  const handle = oidc.callback();
  const requests = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url, issuer).pathname;
    if (path === '/_requests') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(requests));
      return;
    }
    const entry = {
      method: req.method,
      path,
      agent: req.headers['user-agent'] ?? null,
      authorization: (req.headers.authorization ?? '').split(' ')[0] || null,
    };
    res.on('finish', () => {
      entry.status = res.statusCode;
      requests.push(entry);
    });
    if (hideRfc8414 && path.startsWith(RFC8414)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not_found"}');
      return;
    }
    handle(req, res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
}

await Promise.all([
  serve('a', config.a, 'rsa', 'RS256', ['mcp-e2e', 'mcp-e2e-2'], false),
  serve('b', config.b, 'ec', 'ES256', ['mcp-e2e'], true),
]);
console.log('ready');
