// The MCP Inspector's CLI (@modelcontextprotocol/inspector --cli) against our servers.
//
// usage: node cli.mjs INSPECTOR EVERYTHING_URL EVERYTHING_BINARY QUICKSTART_URL
//
// INSPECTOR is the mcp-inspector executable run.sh installed. Every check runs the CLI once
// with --format json (one JSON object on stdout: {"result": ..} or {"error": ..}) and looks at
// what it printed and its exit status: the everything server over Streamable HTTP
// (--transport http) in every --protocol-era (legacy: initialize and a session; modern:
// 2026-07-28, stateless; auto: the CLI's probe, which adopts 2026-07-28), over stdio (the CLI
// spawns EVERYTHING_BINARY --stdio) in legacy and modern, and the quickstart over HTTP in legacy
// and modern. Prints "PASS name" or
// "FAIL name: why" per check and a last line "N passed, M failed"; exits 1 if any failed.
import { AsyncLocalStorage } from 'node:async_hooks';
import { execFile } from 'node:child_process';

const [inspector, everythingUrl, everythingBinary, quickstartUrl] = process.argv.slice(2);
if (!quickstartUrl) {
  console.error('usage: node cli.mjs INSPECTOR EVERYTHING_URL EVERYTHING_BINARY QUICKSTART_URL');
  process.exit(2);
}

const TEST_IMAGE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
// The exit status the CLI gives a tools/call whose result has isError: true.
const TOOL_IS_ERROR = 5;
// Scenarios run a few at a time (each CLI run is a second of Node start-up); each one's lines
// go to its own list, printed in order at the end.
const report = new AsyncLocalStorage();

/** Runs the CLI with `args`, --format json, then `target` (a stdio command follows `--`, so that
 * its own flags are not the CLI's); resolves {status, out, stdout, stderr}. */
function cli(target, args) {
  return new Promise((resolve) => {
    execFile(inspector, ['--cli', ...args, '--format', 'json', ...target], { timeout: 30_000 }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      let out = null;
      try {
        // A result on stdout; an error envelope ({"error": ..}) on stderr, the status non-zero.
        out = JSON.parse(stdout.trim() || stderr.trim());
      } catch {
        // left null: the check names the raw output
      }
      resolve({ status, out, stdout, stderr });
    });
  });
}

/** JSON with every object's keys sorted: equal values, whatever the key order. */
const canonical = (value) => JSON.stringify(value, (_, v) => (v && typeof v === 'object' && !Array.isArray(v)
  ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
const same = (a, b) => canonical(a) === canonical(b);

function assert(condition, why) {
  if (!condition) throw new Error(why);
}

/** Runs the CLI on `target` with `args`, insists on exit status `expect`, then `verify(result)`. */
async function check(name, target, args, verify, expect = 0) {
  const lines = report.getStore();
  try {
    const got = await cli(target, args);
    const brief = (got.stdout || got.stderr).slice(0, 400).replace(/\s+/g, ' ');
    assert(got.status === expect, `exit status ${got.status} (wanted ${expect}): ${brief}`);
    assert(got.out !== null, `stdout is not one JSON object: ${brief}`);
    verify(got.out.result ?? got.out, got);
    lines.push(`PASS ${name}`);
  } catch (e) {
    lines.push(`FAIL ${name}: ${String(e.message ?? e).slice(0, 600)}`);
  }
}

const text = (result) => {
  assert(!result.isError, `isError: ${JSON.stringify(result.content)}`);
  assert(result.content?.length === 1 && result.content[0].type === 'text', JSON.stringify(result.content));
  return result.content[0].text;
};

async function everything(label, target, era) {
  const tag = `${label} [--protocol-era ${era}]`;
  const wantVersion = era === 'legacy' ? '2025-11-25' : '2026-07-28';
  const e = ['--protocol-era', era];
  await check(`${tag} initialize: ${wantVersion}`, target, ['--method', 'initialize', ...e], (r) => {
    assert(r.protocolVersion === wantVersion, `protocolVersion ${r.protocolVersion}`);
    assert(r.serverInfo?.name === 'mcp-conformance-test-server', JSON.stringify(r.serverInfo));
  });
  await check(`${tag} tools/list --strict (no portability errors)`, target, ['--method', 'tools/list', '--strict', ...e], (r, got) => {
    const names = r.tools.map((t) => t.name);
    for (const want of ['test_simple_text', 'test_image_content', 'test_error_handling', 'json_schema_2020_12_tool', 'greet']) {
      assert(names.includes(want), `no ${want} in ${names}`);
    }
    assert(new Set(names).size === names.length, `a tool listed twice: ${names}`);
    assert(!/error/i.test(got.stderr), `--strict reported: ${got.stderr.slice(0, 400)}`);
  });
  await check(`${tag} tools/call text`, target, ['--method', 'tools/call', '--tool-name', 'test_simple_text', ...e], (r) => {
    assert(text(r) === 'This is a simple text response for testing.', text(r));
    // 2026-07-28 results say they are complete; session-era results have no resultType.
    assert(era === 'legacy' ? r.resultType === undefined : r.resultType === 'complete', `resultType ${r.resultType}`);
  });
  await check(`${tag} tools/call image`, target, ['--method', 'tools/call', '--tool-name', 'test_image_content', ...e], (r) => {
    const [block] = r.content;
    assert(block.type === 'image' && block.data === TEST_IMAGE && block.mimeType === 'image/png', JSON.stringify(block));
  });
  await check(`${tag} tools/call mixed content`, target, ['--method', 'tools/call', '--tool-name', 'test_multiple_content_types', ...e], (r) => {
    assert(r.content.map((b) => b.type).join() === 'text,image,resource', JSON.stringify(r.content));
  });
  await check(`${tag} tools/call isError result: exit ${TOOL_IS_ERROR}`, target, ['--method', 'tools/call', '--tool-name', 'test_error_handling', ...e], (r) => {
    assert(r.isError === true, JSON.stringify(r));
    assert(r.content[0].text === 'This tool intentionally returns an error for testing', JSON.stringify(r.content));
  }, TOOL_IS_ERROR);
  await check(`${tag} tools/call --tool-arg (greet name=Ada)`, target, ['--method', 'tools/call', '--tool-name', 'greet', '--tool-arg', 'name=Ada', ...e], (r) => {
    assert(text(r) === 'Hello, Ada!', text(r));
  });
  const args2020 = { name: 'Ada', contactMethod: 'email', email: 'ada@example.com', address: { street: '1 Loop', city: 'Babbage' } };
  await check(`${tag} tools/call --tool-args-json (JSON Schema 2020-12 tool)`, target, ['--method', 'tools/call', '--tool-name', 'json_schema_2020_12_tool', '--tool-args-json', JSON.stringify(args2020), ...e], (r) => {
    const t = text(r);
    assert(t.startsWith('JSON Schema 2020-12 tool called with: '), t);
    const echoed = JSON.parse(t.split(': ').slice(1).join(': '));
    assert(same(echoed, args2020), t);
  });
  await check(`${tag} resources/list`, target, ['--method', 'resources/list', ...e], (r) => {
    const uris = r.resources.map((x) => x.uri);
    for (const want of ['test://static-text', 'test://static-binary', 'test://watched-resource']) {
      assert(uris.includes(want), `no ${want} in ${uris}`);
    }
  });
  await check(`${tag} resources/templates/list`, target, ['--method', 'resources/templates/list', ...e], (r) => {
    assert(r.resourceTemplates.map((t) => t.uriTemplate).join() === 'test://template/{id}/data', JSON.stringify(r));
  });
  await check(`${tag} resources/read text`, target, ['--method', 'resources/read', '--uri', 'test://static-text', ...e], (r) => {
    const [c] = r.contents;
    assert(c.text === 'This is the content of the static text resource.' && c.mimeType === 'text/plain', JSON.stringify(c));
  });
  await check(`${tag} resources/read blob`, target, ['--method', 'resources/read', '--uri', 'test://static-binary', ...e], (r) => {
    const [c] = r.contents;
    assert(c.blob === TEST_IMAGE && c.mimeType === 'image/png', JSON.stringify(c));
  });
  await check(`${tag} resources/read template`, target, ['--method', 'resources/read', '--uri', 'test://template/42/data', ...e], (r) => {
    const [c] = r.contents;
    assert(same(JSON.parse(c.text), { id: '42', templateTest: true, data: 'Data for ID: 42' }), c.text);
  });
  await check(`${tag} prompts/list`, target, ['--method', 'prompts/list', ...e], (r) => {
    const names = r.prompts.map((p) => p.name);
    for (const want of ['test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_image']) {
      assert(names.includes(want), `no ${want} in ${names}`);
    }
  });
  await check(`${tag} prompts/get --prompt-args`, target, ['--method', 'prompts/get', '--prompt-name', 'test_prompt_with_arguments', '--prompt-args', 'arg1=alpha', 'arg2=beta', ...e], (r) => {
    const [m] = r.messages;
    assert(m.content.text === "Prompt with arguments: arg1='alpha', arg2='beta'", JSON.stringify(m));
  });
  await check(`${tag} prompts/get image`, target, ['--method', 'prompts/get', '--prompt-name', 'test_prompt_with_image', ...e], (r) => {
    assert(r.messages[0].content.type === 'image' && r.messages[0].content.data === TEST_IMAGE, JSON.stringify(r.messages[0]));
  });
  if (era === 'legacy') {
    await check(`${tag} logging/setLevel`, target, ['--method', 'logging/setLevel', '--log-level', 'debug', ...e], (r) => {
      assert(JSON.stringify(r) === '{}', JSON.stringify(r));
    });
  }
  // The CLI declares no elicitation: the server says which capability is missing.
  await check(`${tag} a tool that elicits, from a client without elicitation: refused naming it`, target, ['--method', 'tools/call', '--tool-name', 'test_input_required_result_elicitation', ...e], (r) => {
    assert(/elicitation/.test(JSON.stringify(r)), JSON.stringify(r));
  }, 1);
}

async function quickstart(era) {
  const tag = `quickstart http [--protocol-era ${era}]`;
  const target = [quickstartUrl, '--transport', 'http'];
  const e = ['--protocol-era', era];
  await check(`${tag} tools/list --strict`, target, ['--method', 'tools/list', '--strict', ...e], (r) => {
    assert(r.tools.map((t) => t.name).sort().join() === 'add,create_note,search_notes', JSON.stringify(r.tools.map((t) => t.name)));
  });
  await check(`${tag} tools/call add a=2 b=40`, target, ['--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=40', ...e], (r) => {
    assert(r.content[0].text === '42', JSON.stringify(r));
  });
  let note;
  await check(`${tag} tools/call create_note`, target, ['--method', 'tools/call', '--tool-name', 'create_note', '--tool-args-json', JSON.stringify({ title: `Inspector ${era}`, body: 'written by the CLI', tags: [`insp${era}`] }), ...e], (r) => {
    note = JSON.parse(r.content[0].text);
    assert(note.title === `Inspector ${era}`, JSON.stringify(note));
  });
  await check(`${tag} tools/call create_note with an empty title: isError`, target, ['--method', 'tools/call', '--tool-name', 'create_note', '--tool-args-json', '{"title":"","body":"x"}', ...e], (r) => {
    assert(r.isError === true, JSON.stringify(r));
  }, TOOL_IS_ERROR);
  await check(`${tag} resources/list`, target, ['--method', 'resources/list', ...e], (r) => {
    assert(r.resources.map((x) => x.uri).includes('notes://index'), JSON.stringify(r));
  });
  await check(`${tag} resources/read notes://notes/{id}`, target, ['--method', 'resources/read', '--uri', `notes://notes/${note?.id}`, ...e], (r) => {
    assert(same(JSON.parse(r.contents[0].text), note), r.contents[0].text);
  });
  await check(`${tag} prompts/list`, target, ['--method', 'prompts/list', ...e], (r) => {
    assert(r.prompts.map((p) => p.name).join() === 'summarize', JSON.stringify(r));
  });
  await check(`${tag} prompts/get summarize`, target, ['--method', 'prompts/get', '--prompt-name', 'summarize', '--prompt-args', `topic=insp${era}`, 'style=haiku', ...e], (r) => {
    const t = r.messages[0].content.text;
    assert(t.includes(`- Inspector ${era}: written by the CLI`), t);
  });
}

const scenarios = [
  ...['legacy', 'modern', 'auto'].map((era) => () => everything('everything http', [everythingUrl, '--transport', 'http'], era)),
  ...['legacy', 'modern'].map((era) => () => everything('everything stdio', ['--transport', 'stdio', '-q', '--', everythingBinary, '--stdio', '--log-level', 'error'], era)),
  ...['legacy', 'modern'].map((era) => () => quickstart(era)),
];
const PARALLEL = 3;
const outputs = scenarios.map(() => []);
let next = 0;
await Promise.all(Array.from({ length: PARALLEL }, async () => {
  while (next < scenarios.length) {
    const i = next++;
    await report.run(outputs[i], scenarios[i]);
  }
}));
const lines = outputs.flat();
for (const line of lines) console.log(line);
const passed = lines.filter((l) => l.startsWith('PASS')).length;
const failed = lines.length - passed;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
