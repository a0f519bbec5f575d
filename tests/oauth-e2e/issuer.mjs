// Two authorization servers played by oidc-provider (pinned by ./package-lock.json), both plain
// http on 127.0.0.1, for tests/oauth-e2e/run.sh.
//
//   A  RS256, a key made at start; serves both metadata documents (RFC 8414
//      /.well-known/oauth-authorization-server and /.well-known/openid-configuration).
//      Resource servers: the MCP server A and a foreign resource (OTHER).
//      Clients: mcp-e2e, mcp-e2e-2 and mcp-e2e-3 (client_credentials, client_secret_basic), and
//      the gateway's own, mcp-gateway, whose only grant is the token exchange (RFC 8693, below).
//   B  ES256, another key; /.well-known/oauth-authorization-server answers 404, so a client of
//      B must fall back to /.well-known/openid-configuration. Resource server: the MCP server B.
//      Client: mcp-e2e.
//
// Access tokens are JWTs (RFC 9068, typ at+jwt) whose `aud` is the resource indicator the
// client asked for (RFC 8707; without one, the issuer's MCP server), with the scopes the client
// asked for among "mcp mcp:read weather".
//
// A's token exchange (RFC 8693), for the gateway's --upstream-auth token-exchange: the client
// mcp-gateway exchanges a subject token (an access token of A whose `aud` is
// exchange.subjectAudience, the gateway) for a JWT whose `sub` and `client_id` are the subject
// token's, `aud` the `audience` asked for (one of exchange.audiences, each with the issued
// token's lifetime in seconds), `act` {"sub": "mcp-gateway"} (RFC 8693 §4.1). Refused with
// invalid_grant: a subject token that does not verify, is expired, is not for one of
// exchange.subjectAudiences (the gateways), or
// whose client is in exchange.refuse; invalid_target: another audience. Each exchange is
// recorded, and `GET /_exchanges` answers them: [{client, sub, audience, jti}].
//
// Every HTTP request each issuer receives is recorded, and `GET /_requests` (a test-only path)
// answers the list: [{method, path, status, agent, authorization}] (authorization: the scheme
// only), so the checks can see which documents the MCP server itself fetched (it sends no
// User-Agent; Node's fetch sends "node").
//
// usage: node issuer.mjs NODE_MODULES_DIR CONFIG_JSON
//   NODE_MODULES_DIR  where `npm ci` of ./package-lock.json installed oidc-provider
//   CONFIG_JSON {"a": {"port", "resources": [...]}, "b": {"port", "resources": [...]},
//                "secret": "...",
//                "exchange": {"subjectAudiences": [...], "audiences": {"...": TTL}, "refuse": [...]}}
// Prints one line "ready" on stdout once both listen.
import { createServer } from 'node:http';
import { createSign, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
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
  const { privateKey, publicKey } =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { jwk: { ...privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' }, privateKey, publicKey };
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const b64url = (data) => Buffer.from(data).toString('base64url');

// RS256 only: the exchange is issuer A's.
function signJwt(key, claims) {
  const head = b64url(JSON.stringify({ alg: 'RS256', typ: 'at+jwt', kid: key.jwk.kid }));
  const body = b64url(JSON.stringify(claims));
  const signature = createSign('RSA-SHA256').update(`${head}.${body}`).sign(key.privateKey);
  return `${head}.${body}.${b64url(signature)}`;
}

function verifiedClaims(key, token) {
  const [head, body, signature] = String(token).split('.');
  if (!signature) return null;
  const good = createVerify('RSA-SHA256')
    .update(`${head}.${body}`)
    .verify(key.publicKey, Buffer.from(signature, 'base64url'));
  return good ? JSON.parse(Buffer.from(body, 'base64url').toString()) : null;
}

// The token-exchange grant of issuer A (see the top of this file).
function registerExchange(oidc, issuer, key, exchange, exchanges) {
  oidc.registerGrantType(
    TOKEN_EXCHANGE,
    async (ctx) => {
      const { params, client } = ctx.oidc;
      if (params.subject_token_type !== ACCESS_TOKEN_TYPE) {
        throw new errors.InvalidRequest('subject_token_type must be an access token');
      }
      const subject = verifiedClaims(key, params.subject_token);
      const now = Math.floor(Date.now() / 1000);
      if (!subject || subject.iss !== issuer || !(subject.exp > now)) {
        throw new errors.InvalidGrant('the subject token is not a valid access token of this issuer');
      }
      if (!exchange.subjectAudiences.includes(subject.aud)) {
        throw new errors.InvalidGrant('the subject token is not for the exchanging resource');
      }
      if (exchange.refuse.includes(subject.client_id)) {
        throw new errors.InvalidGrant(`tokens of ${subject.client_id} may not be exchanged`);
      }
      const ttl = exchange.audiences[params.audience];
      if (!ttl) throw new errors.InvalidTarget('unknown audience');
      const jti = randomBytes(12).toString('hex');
      const token = signJwt(key, {
        iss: issuer,
        sub: subject.sub,
        aud: params.audience,
        client_id: subject.client_id,
        act: { sub: client.clientId },
        scope: params.scope ?? subject.scope,
        iat: now,
        exp: now + ttl,
        jti,
      });
      exchanges.push({ client: client.clientId, sub: subject.sub, audience: params.audience, jti });
      ctx.body = {
        access_token: token,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: 'Bearer',
        expires_in: ttl,
      };
    },
    ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'scope'],
  );
}

function provider({ issuer, key, alg, resources, clients, exchanging }) {
  const known = new Set(resources);
  const gateway = {
    client_id: 'mcp-gateway',
    client_secret: config.secret,
    grant_types: [TOKEN_EXCHANGE],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: alg,
  };
  return new Provider(issuer, {
    clients: [...(exchanging ? [gateway] : []), ...clients.map((client_id) => ({
      client_id,
      client_secret: config.secret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: alg,
      scope: SCOPES.join(' '),
    }))],
    jwks: { keys: [key.jwk] },
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

function serve(name, { port, resources }, kind, alg, clients, hideRfc8414, exchange) {
  const issuer = `http://127.0.0.1:${port}`;
  const key = signingKey(kind, alg, `${name}-${alg}`);
  const oidc = provider({ issuer, key, alg, resources, clients, exchanging: !!exchange });
  const exchanges = [];
  if (exchange) registerExchange(oidc, issuer, key, exchange, exchanges);
  const handle = oidc.callback();
  const requests = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url, issuer).pathname;
    if (path === '/_requests' || path === '/_exchanges') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(path === '/_requests' ? requests : exchanges));
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
  serve('a', config.a, 'rsa', 'RS256', ['mcp-e2e', 'mcp-e2e-2', 'mcp-e2e-3'], false, config.exchange),
  serve('b', config.b, 'ec', 'ES256', ['mcp-e2e'], true, null),
]);
console.log('ready');
