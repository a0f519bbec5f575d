// The 2024-11-05 HTTP+SSE transport against a real client: the TypeScript SDK's
// SSEClientTransport + Client (the SDK pinned by the conformance suite's lock, 1.32.2), on the
// everything-server started with --legacy-sse.
//
// usage: node client.mjs SDK_DIR BASE_URL MODE
//   MODE latest    the client as it ships (initialize at its latest revision)
//   MODE 2024      a client that only speaks 2024-11-05 (its initialize is rewritten to ask for it)
//   MODE off       the option is off: GET /sse must be 404 and the client must fail to connect
// Exits non-zero on any failure.
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';

const [sdkDir, base, mode] = process.argv.slice(2);
if (!sdkDir || !base || !['latest', '2024', 'off'].includes(mode)) {
  console.error('usage: node client.mjs SDK_DIR BASE_URL latest|2024|off');
  process.exit(2);
}
const sdkVersion = JSON.parse(readFileSync(`${sdkDir}/package.json`, 'utf8')).version;
assert.equal(sdkVersion, '1.32.2', `the pinned SDK (found ${sdkVersion})`);
const load = (path) => import(pathToFileURL(`${sdkDir}/dist/esm/${path}`).href);
const { Client } = await load('client/index.js');
const { SSEClientTransport } = await load('client/sse.js');
const { CreateMessageRequestSchema, LoggingMessageNotificationSchema } = await load('types.js');

const sseUrl = new URL('/sse', base);

if (mode === 'off') {
  const response = await fetch(sseUrl, { headers: { accept: 'text/event-stream' } });
  assert.equal(response.status, 404, 'GET /sse with the option off');
  const client = new Client({ name: 'legacy-sse-client', version: '1.0.0' });
  await assert.rejects(client.connect(new SSEClientTransport(sseUrl)), 'connecting must fail');
  console.log('ok: option off, /sse is 404 and the SSE client cannot connect');
  process.exit(0);
}

const transport = new SSEClientTransport(sseUrl);
let negotiated;
const setVersion = transport.setProtocolVersion.bind(transport);
transport.setProtocolVersion = (version) => {
  negotiated = version;
  setVersion(version);
};
if (mode === '2024') {
  // An older client: it asks for 2024-11-05, the only revision it knows.
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    if (message.method === 'initialize') {
      message = { ...message, params: { ...message.params, protocolVersion: '2024-11-05' } };
    }
    return send(message);
  };
}

const client = new Client(
  { name: 'legacy-sse-client', version: '1.0.0' },
  { capabilities: { sampling: {} } }
);
// Server-to-client requests and notifications arrive on the same stream.
client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
  role: 'assistant',
  model: 'test-model',
  content: { type: 'text', text: `echo of ${request.params.messages[0].content.text}` },
}));
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  logs.push(notification.params);
});

const timeout = setTimeout(() => {
  console.error('error: timed out');
  process.exit(1);
}, 30_000);

try {
  await client.connect(transport);
  const expected = mode === '2024' ? '2024-11-05' : '2025-11-25';
  assert.equal(negotiated, expected, 'the negotiated protocol version');
  const capabilities = client.getServerCapabilities();
  assert.ok(capabilities.tools, 'tools capability');
  assert.equal(
    'completions' in capabilities,
    mode !== '2024',
    '2024-11-05 has no completions capability'
  );
  await client.ping();

  const { tools } = await client.listTools();
  assert.ok(tools.length > 10, `tools listed: ${tools.length}`);
  assert.ok(tools.some((tool) => tool.name === 'test_simple_text'));
  if (mode === '2024') {
    for (const tool of tools) {
      for (const absent of ['annotations', 'title', 'outputSchema', 'icons']) {
        assert.ok(!(absent in tool), `2024-11-05 tool ${tool.name} has no ${absent}`);
      }
    }
  }

  const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
  assert.equal(simple.content[0].type, 'text');
  assert.ok(simple.content[0].text.length > 0);
  const greeted = await client.callTool({ name: 'greet', arguments: { name: 'SSE' } });
  assert.match(JSON.stringify(greeted.content), /SSE/);

  const audio = await client.callTool({ name: 'test_audio_content', arguments: {} });
  assert.equal(audio.content[0].type, mode === '2024' ? 'text' : 'audio', 'audio content');

  // A server-to-client request (sampling), answered by the client with a POST.
  const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
  assert.match(sampled.content[0].text, /echo of hi/);

  // Log notifications of a running request.
  await client.setLoggingLevel('debug');
  await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  assert.ok(logs.length > 0, 'log notifications arrived on the stream');

  const { prompts } = await client.listPrompts();
  assert.ok(prompts.some((prompt) => prompt.name === 'test_prompt_with_arguments'));
  const prompt = await client.getPrompt({
    name: 'test_prompt_with_arguments',
    arguments: { arg1: 'a', arg2: 'b' },
  });
  assert.match(prompt.messages[0].content.text, /arg1='a'/);

  const { resources } = await client.listResources();
  assert.ok(resources.some((resource) => resource.uri === 'test://static-text'));
  const read = await client.readResource({ uri: 'test://static-text' });
  assert.equal(read.contents[0].uri, 'test://static-text');
  assert.ok(read.contents[0].text.length > 0);

  // An error travels on the stream like any answer.
  await assert.rejects(client.getPrompt({ name: 'no_such_prompt' }), /-32602|not found|Unknown/i);

  clearTimeout(timeout);
  await client.close();
  console.log(
    `ok: ${mode} over HTTP+SSE, protocol ${negotiated}: ${tools.length} tools, ` +
      `${prompts.length} prompts, ${resources.length} resources, sampling and logs on the stream`
  );
  process.exit(0);
} catch (error) {
  console.error('error:', error);
  process.exit(1);
}
