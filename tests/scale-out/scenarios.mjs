// tests/scale-out/scenarios.mjs — scale-out scenarios against a cluster started by cluster.sh:
// several instances of the everything-server sharing state through Redis, behind nginx.
//
// usage: node scenarios.mjs STATE_FILE [--only NAME,NAME...]
//   STATE_FILE  the file cluster.sh wrote (SCALE_OUT_STATE): ports and pids of nginx, redis and
//               the instances. Instances are A, B, C (1, 2, 3); a scenario naming an instance
//               talks to it directly by port, "through nginx" means port nginx_port.
//
// Scenarios (plain fetch, 2026-07-28 requests: _meta with protocolVersion and clientCapabilities,
// headers mcp-protocol-version, mcp-method, mcp-name):
//   round-robin              plain tools/call through nginx land on every instance (access log)
//   task-across-instances    multi_input started on A, polled (tasks/get) and answered in part
//                            (tasks/update) through B, cancelled (tasks/cancel) through C,
//                            cancelled as seen from A and B
//   task-completes-elsewhere confirm_delete started on B, answered through A, completed as seen
//                            from C with the handler's result
//   cancel-running-task      slow_compute (2 s) started on A, cancelled through C; stays
//                            cancelled after the handler would have finished
//   tasks-through-nginx      a task started and polled through nginx (each poll may land anywhere)
//   listen-fan-out           subscriptions/listen streams on A, B and C each receive exactly one
//                            notifications/tools/list_changed for a test_trigger_tool_change on C
//   redis-outage             Redis killed (SIGKILL) and started again on its port (USR1 to
//                            cluster.sh) while plain calls run through nginx: every plain call
//                            answers 200, no instance exits, task requests get HTTP 503 with a
//                            JSON-RPC error while Redis is gone, and a new task works on every
//                            instance (and a list change fans out again) soon after it is back
//   master-failover          (a Redis Cluster, SCALE_OUT_REDIS_CLUSTER=1) 12 sessions and 6 tasks
//                            acknowledged through nginx; the master holding the most of them
//                            killed with SIGKILL while session calls, session creations and task
//                            creations run through nginx: its replica takes over, every request
//                            answers a result or a clean retryable error (503, or a JSON-RPC error
//                            with data.retryable), every session and task acknowledged before and
//                            during the switch is read back from the masters (SCAN) and served by
//                            A, B and C; the node started again (USR1) rejoins as a replica, and
//                            then a new session and task work through every instance
//   session-across-instances a 2025-11-25 session initialized on A serves tools/call on B and C,
//                            tools/list, logging/setLevel, resources/subscribe and ping on
//                            each of A, B, C (by port); test_elicitation called on A is answered
//                            by a POST to B; DELETE on B, then the session is 404 on A and C
//   sessions-through-nginx   a session initialized through nginx serves 12 requests there
//                            (each may land on any instance), then DELETE through nginx
//   bus-carries-only-minted-answers  a raw subscriber on the Redis bus: responses to ids no
//                            instance minted (256 KiB each) and a cancellation of a 4 KiB id,
//                            POSTed to B, publish nothing; a real answer to A's elicitation,
//                            POSTed to B, travels once, on A's own channel only, and completes
//                            the call on A
//   stream-resumed-elsewhere test_reconnection called on A in a 2025-11-25 session: A closes the
//                            POST's SSE stream after its priming event; a GET with that
//                            Last-Event-ID on B gets the call's result (relayed from A); a
//                            Last-Event-ID no instance issued is 400 on C
//   instance-killed          slow_compute (60 s) started on A, and a 2025-11-25 session's GET
//                            stream open on A, which reads two list changes triggered on C and
//                            leaves a third unread; A killed with SIGKILL: within its lease (6 s)
//                            and a margin, tasks/get through B says `failed` ("the server
//                            instance running this task stopped"), as seen from C too, and B and
//                            C still serve; the GET stream reconnected through nginx with
//                            Last-Event-ID gets the third and the two triggered while A was dead,
//                            in order, once, then a later one live (run last: A stays dead)
//
// Output: `PASS scenario: step`, `FAIL scenario: step: why` (a failed step ends its scenario,
// except the independent expectations while Redis is gone), `INFO ...`; the LAST line is `N passed, M failed` (steps). Exit 0 only when M == 0.

import { readFileSync, existsSync } from "node:fs";

const V = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const TASK_CAPS = { elicitation: {}, extensions: { [TASKS]: {} } };
const SETTLES_MS = 5000; // how long a task may take to reach a state (the machine may be busy)
const RECOVERY_LIMIT_MS = 10000; // full service after Redis is back, at most
const ALL = [
  "round-robin",
  "task-across-instances",
  "task-completes-elsewhere",
  "cancel-running-task",
  "tasks-through-nginx",
  "listen-fan-out",
  "session-across-instances",
  "sessions-through-nginx",
  "bus-carries-only-minted-answers",
  "stream-resumed-elsewhere",
  "redis-outage",
  "master-failover",
  "instance-killed",
];

// ---- arguments and state -------------------------------------------------------------------------
const argv = process.argv.slice(2);
const stateFile = argv[0];
if (!stateFile || !existsSync(stateFile)) {
  console.error(`usage: node scenarios.mjs STATE_FILE [--only NAME,...]  (no state file: ${stateFile})`);
  console.log("0 passed, 1 failed");
  process.exit(2);
}
// By default, every scenario that fits the cluster: one redis-server is killed and restarted
// (redis-outage), a Redis Cluster loses a master (master-failover).
let only = ALL;
const o = argv.indexOf("--only");
if (o >= 0) {
  only = (argv[o + 1] || "").split(",").filter(Boolean);
  const unknown = only.filter((s) => !ALL.includes(s));
  if (unknown.length) {
    console.error(`unknown scenario(s): ${unknown.join(", ")}; known: ${ALL.join(", ")}`);
    console.log("0 passed, 1 failed");
    process.exit(2);
  }
}

function readState() {
  const state = {};
  for (const line of readFileSync(stateFile, "utf8").split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) state[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return state;
}
let state = readState();
if (o < 0) only = ALL.filter((name) => name !== (state.redis_cluster === "1" ? "redis-outage" : "master-failover"));
const count = Number(state.instances);
const inst = [];
for (let i = 1; i <= count; i++) {
  inst.push({
    name: "ABCDEFGHIJ"[i - 1] ?? `#${i}`,
    port: Number(state[`instance_${i}_port`]),
    pid: Number(state[`instance_${i}_pid`]),
    log: state[`instance_${i}_log`],
  });
}
const NGINX = { name: "nginx", port: Number(state.nginx_port) };
const [A, B, C] = inst;

// ---- results -------------------------------------------------------------------------------------
let passed = 0;
let failed = 0;
class StepFailed extends Error {}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const short = (v, n = 400) => {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > n ? `${s.slice(0, n)}...` : s;
};
function info(text) {
  console.log(`INFO ${text}`);
}

// step(scenario, name, fn): runs fn; its return (a string) is printed after PASS; a throw is FAIL
// and ends the scenario.
async function step(scenario, name, fn) {
  try {
    const note = await fn();
    passed++;
    console.log(`PASS ${scenario}: ${name}${note ? ` (${note})` : ""}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${scenario}: ${name}: ${e instanceof StepFailed ? e.message : e?.stack || e}`);
    throw new StepFailed("scenario ended");
  }
}
// check(...): like step, but a failure does not end the scenario (independent expectations).
async function check(scenario, name, fn) {
  try {
    await step(scenario, name, fn);
  } catch (e) {
    if (!(e instanceof StepFailed)) throw e;
  }
}
function expect(condition, message) {
  if (!condition) throw new StepFailed(message);
}

// ---- the wire -------------------------------------------------------------------------------------
let nextId = 1;
const url = (target) => `http://127.0.0.1:${target.port}/mcp`;

// Parses an SSE body into its JSON messages.
function sseMessages(text) {
  const out = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data) {
      try {
        out.push(JSON.parse(data));
      } catch {
        /* not JSON: ignored */
      }
    }
  }
  return out;
}

// One 2026-07-28 request to `target`. Returns {status, body (the response with our id, or null),
// messages, text, ms, error (a network error or time-out, as text)}.
async function rpc(target, method, params = {}, { caps = {}, name, timeoutMs = 15000 } = {}) {
  const id = nextId++;
  const full = { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": caps, ...(params._meta || {}) } };
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": V,
    "mcp-method": method,
  };
  const routed = name ?? params.name ?? params.uri ?? params.taskId;
  if (routed !== undefined) headers["mcp-name"] = String(routed);
  const started = Date.now();
  try {
    const res = await fetch(url(target), {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params: full }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const sse = (res.headers.get("content-type") || "").startsWith("text/event-stream");
    let messages = [];
    if (sse) messages = sseMessages(text);
    else {
      try {
        messages = [JSON.parse(text)];
      } catch {
        /* not JSON */
      }
    }
    const body = messages.find((m) => m && m.id === id && !("method" in m)) ?? null;
    return { status: res.status, body, messages, text, ms: Date.now() - started, id };
  } catch (e) {
    return { status: 0, body: null, messages: [], text: "", ms: Date.now() - started, id, error: String(e?.cause?.code || e?.name || e) };
  }
}
const describe = (a) => (a.error ? `${a.error} after ${a.ms} ms` : `HTTP ${a.status} ${short(a.text)}`);

// The result of a 200 success, else a StepFailed naming what came instead.
function resultOf(answer, what) {
  expect(answer.status === 200 && answer.body && "result" in answer.body, `${what}: expected a 200 result, got ${describe(answer)}`);
  return answer.body.result;
}

const callTool = (target, tool, args = {}, caps = {}) => rpc(target, "tools/call", { name: tool, arguments: args }, { caps });

async function startTask(target, tool, args) {
  const answer = await callTool(target, tool, args, TASK_CAPS);
  const result = resultOf(answer, `tools/call ${tool} on ${target.name}`);
  expect(result.resultType === "task" && typeof result.taskId === "string" && result.status === "working",
    `tools/call ${tool} on ${target.name}: expected a CreateTaskResult (resultType task, status working), got ${short(answer.text)}`);
  return result;
}
const taskRequest = (target, method, taskId, fields = {}) => rpc(target, method, { taskId, ...fields }, { caps: TASK_CAPS });

async function getTask(target, taskId) {
  const answer = await taskRequest(target, "tasks/get", taskId);
  const result = resultOf(answer, `tasks/get on ${target.name}`);
  expect(result.taskId === taskId, `tasks/get on ${target.name}: another task id: ${short(answer.text)}`);
  return result;
}

async function waitTask(target, taskId, done, what) {
  const started = Date.now();
  let last;
  for (;;) {
    last = await getTask(target, taskId);
    if (done(last)) return last;
    expect(Date.now() - started < SETTLES_MS, `tasks/get on ${target.name}: ${what} not reached within ${SETTLES_MS} ms; last: ${short(last)}`);
    await sleep(50);
  }
}

function expectAck(answer, what) {
  const result = resultOf(answer, what);
  expect(JSON.stringify(result) === JSON.stringify({ resultType: "complete" }), `${what}: expected {"resultType":"complete"}, got ${short(answer.text)}`);
}

/** An SSE response body read event by event: `parse(block)`, a subclass's, turns each event's
 * text into the items `next` returns. A body that breaks (its server killed) ends the stream. */
class SseEvents {
  attach(res) {
    this.reader = res.body.getReader();
    this.decoder = new TextDecoder();
    this.buffer = "";
    this.queue = [];
    this.ended = false;
  }
  // The next item, or null after `ms` (or when the stream ended).
  async next(ms) {
    const deadline = Date.now() + ms;
    for (;;) {
      if (this.queue.length) return this.queue.shift();
      if (this.ended) return null;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      if (!this.pending) this.pending = this.reader.read().catch(() => ({ done: true }));
      const chunk = await Promise.race([this.pending, sleep(left).then(() => "timeout")]);
      if (chunk === "timeout") return null;
      this.pending = null;
      if (chunk.done) {
        this.ended = true;
        continue;
      }
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
      let cut;
      while ((cut = this.buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = this.buffer.slice(0, cut);
        this.buffer = this.buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
        this.queue.push(...this.parse(block));
      }
    }
  }
  close() {
    try {
      this.abort.abort();
    } catch {
      /* closed */
    }
  }
}

// A subscriptions/listen stream: opened, its acknowledgement read.
class Listen extends SseEvents {
  static async open(target, id, notifications) {
    const l = new Listen();
    l.target = target;
    l.id = id;
    l.abort = new AbortController();
    l.comments = 0;
    const res = await fetch(url(target), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0", id, method: "subscriptions/listen",
        params: { notifications, _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} } },
      }),
      signal: l.abort.signal,
    });
    l.status = res.status;
    l.contentType = res.headers.get("content-type") || "";
    if (!l.contentType.startsWith("text/event-stream")) {
      l.text = await res.text();
      return l;
    }
    l.attach(res);
    l.ack = await l.next(SETTLES_MS);
    return l;
  }
  // Each event's JSON message (a comment-only event is counted).
  parse(block) {
    if (block.split(/\r?\n/).every((l) => l.startsWith(":") || l === "")) this.comments++;
    return sseMessages(block);
  }
  // The next notification named `method` within `ms` (others are skipped and counted).
  async nextOf(method, ms) {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = await this.next(Math.max(0, deadline - Date.now()));
      if (!m || m.method === method) return m;
    }
  }
}

async function openListen(target, id) {
  const l = await Listen.open(target, id, { toolsListChanged: true });
  expect(l.status === 200 && l.contentType.startsWith("text/event-stream"), `subscriptions/listen on ${target.name}: expected a 200 SSE stream, got HTTP ${l.status} ${short(l.text || "")}`);
  expect(l.ack && l.ack.method === "notifications/subscriptions/acknowledged", `subscriptions/listen on ${target.name}: expected the acknowledgement first, got ${short(l.ack)}`);
  return l;
}

// ---- processes -------------------------------------------------------------------------------------
/** The state field of /proc/PID/stat (R, S, D, Z, ...), for a failure message. */
function procState(pid) {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^\d+ \(.*\) /, "").split(" ")[0];
  } catch {
    return "gone";
  }
}

function alive(pid) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return true;
  }
}
function panicsIn(log) {
  try {
    return readFileSync(log, "utf8").split("\n").filter((l) => /panicked|RUST_BACKTRACE/.test(l));
  } catch {
    return [];
  }
}

// ---- scenarios -------------------------------------------------------------------------------------
const scenarios = {};

scenarios["round-robin"] = async (s) => {
  const rounds = 3 * count;
  await step(s, `${rounds} plain tools/call test_simple_text through nginx answer 200`, async () => {
    for (let i = 0; i < rounds; i++) {
      const answer = await callTool(NGINX, "test_simple_text");
      const result = resultOf(answer, `call ${i + 1}`);
      expect(Array.isArray(result.content) && result.content.length > 0, `call ${i + 1}: no content: ${short(answer.text)}`);
    }
  });
  await step(s, "nginx sent them to every instance (access log upstream=)", async () => {
    await sleep(200); // nginx writes the line as it finishes the request
    const log = readFileSync(`${state.dir}/access.log`, "utf8").trim().split("\n").slice(-rounds);
    const hits = Object.fromEntries(inst.map((x) => [x.name, log.filter((l) => l.includes(`upstream=127.0.0.1:${x.port} `)).length]));
    expect(inst.every((x) => hits[x.name] > 0), `not every instance served one: ${JSON.stringify(hits)}`);
    return JSON.stringify(hits);
  });
};

// ---- session-era sessions ---------------------------------------------------------------------------
const SESSION_V = "2025-11-25";

// One session-era message to `target` (a request when `id` is given, else a notification or a
// response, whose `message` is passed whole). Returns like rpc().
async function sessionPost(target, sessionId, message, { timeoutMs = 15000 } = {}) {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": SESSION_V };
  if (sessionId) headers["mcp-session-id"] = sessionId;
  const started = Date.now();
  try {
    const res = await fetch(url(target), { method: "POST", headers, body: JSON.stringify(message), signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    const sse = (res.headers.get("content-type") || "").startsWith("text/event-stream");
    let messages = [];
    if (sse) messages = sseMessages(text);
    else {
      try {
        messages = text ? [JSON.parse(text)] : [];
      } catch {
        /* not JSON */
      }
    }
    const body = messages.find((m) => m && m.id === message.id && !("method" in m)) ?? null;
    return { status: res.status, body, messages, text, ms: Date.now() - started, session: res.headers.get("mcp-session-id") };
  } catch (e) {
    return { status: 0, body: null, messages: [], text: "", ms: Date.now() - started, error: String(e?.cause?.code || e?.name || e) };
  }
}
const sessionRequest = (target, sessionId, method, params = {}) => sessionPost(target, sessionId, { jsonrpc: "2.0", id: nextId++, method, params });

async function initializeSession(target) {
  const answer = await sessionPost(target, null, {
    jsonrpc: "2.0", id: nextId++, method: "initialize",
    params: { protocolVersion: SESSION_V, capabilities: { elicitation: {} }, clientInfo: { name: "scale-out", version: "1" } },
  });
  const result = resultOf(answer, `initialize on ${target.name}`);
  expect(result.protocolVersion === SESSION_V, `initialize on ${target.name}: negotiated ${short(result.protocolVersion)}`);
  expect(answer.session, `initialize on ${target.name}: no Mcp-Session-Id header`);
  const ack = await sessionPost(target, answer.session, { jsonrpc: "2.0", method: "notifications/initialized" });
  expect(ack.status === 202, `notifications/initialized on ${target.name}: expected 202, got ${describe(ack)}`);
  return answer.session;
}

// Calls test_elicitation on `on` in session `sid` and answers its elicitation/create with a
// POST to `answerTo`: the call's result must carry that answer.
async function elicitationAnsweredElsewhere(sid, on, answerTo) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 15000);
  try {
    const id = nextId++;
    const res = await fetch(url(on), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": SESSION_V, "mcp-session-id": sid },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "test_elicitation", arguments: { message: "Your name?" } } }),
      signal: controller.signal,
    });
    expect(res.status === 200 && (res.headers.get("content-type") || "").startsWith("text/event-stream"), `tools/call on ${on.name}: expected an SSE stream, got HTTP ${res.status}`);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let answered = false;
    for (;;) {
      const chunk = await reader.read();
      expect(!chunk.done, `${on.name}'s stream ended before the result (answered: ${answered}); read: ${short(buffer)}`);
      buffer += decoder.decode(chunk.value, { stream: true });
      for (const m of sseMessages(buffer)) {
        if (m.method === "elicitation/create" && !answered) {
          const reply = await sessionPost(answerTo, sid, { jsonrpc: "2.0", id: m.id, result: { action: "accept", content: { response: `from ${answerTo.name}` } } });
          expect(reply.status === 202, `the answer POSTed to ${answerTo.name}: expected 202, got ${describe(reply)}`);
          answered = true;
        }
        if (m.id === id && !("method" in m)) {
          expect(answered, "a result before the elicitation was answered");
          expect(m.result && JSON.stringify(m.result).includes(`from ${answerTo.name}`), `the result does not carry the answer: ${short(m)}`);
          return;
        }
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

async function deleteSession(target, sessionId) {
  const res = await fetch(url(target), { method: "DELETE", headers: { "mcp-session-id": sessionId, "mcp-protocol-version": SESSION_V } });
  await res.text();
  return res.status;
}

scenarios["session-across-instances"] = async (s) => {
  let sid;
  await step(s, "initialize on A gives a session id", async () => {
    sid = await initializeSession(A);
  });
  for (const target of [B, C]) {
    await step(s, `tools/call test_simple_text on ${target.name} in A's session`, async () => {
      const answer = await sessionRequest(target, sid, "tools/call", { name: "test_simple_text", arguments: {} });
      const result = resultOf(answer, `tools/call on ${target.name}`);
      expect(Array.isArray(result.content) && result.content.length > 0, `tools/call on ${target.name}: no content: ${short(answer.text)}`);
    });
  }
  for (const target of [A, B, C]) {
    await step(s, `tools/list, logging/setLevel, resources/subscribe, ping on ${target.name}`, async () => {
      const tools = resultOf(await sessionRequest(target, sid, "tools/list"), `tools/list on ${target.name}`);
      expect(Array.isArray(tools.tools) && tools.tools.length > 0, `tools/list on ${target.name}: no tools`);
      resultOf(await sessionRequest(target, sid, "logging/setLevel", { level: "info" }), `logging/setLevel on ${target.name}`);
      resultOf(await sessionRequest(target, sid, "resources/subscribe", { uri: "test://static-text" }), `resources/subscribe on ${target.name}`);
      resultOf(await sessionRequest(target, sid, "ping"), `ping on ${target.name}`);
    });
  }
  await step(s, "test_elicitation called on A, answered by a POST to B, completes on A", () =>
    elicitationAnsweredElsewhere(sid, A, B));
  await step(s, "DELETE on B answers 204", async () => {
    const status = await deleteSession(B, sid);
    expect(status === 204, `DELETE on B: expected 204, got ${status}`);
  });
  for (const target of [A, C]) {
    await step(s, `then the session is 404 on ${target.name}`, async () => {
      // Other instances drop their replica when the SessionClosed message arrives (it was
      // published before B answered): allow it a moment on a loaded machine.
      const started = Date.now();
      let answer;
      for (;;) {
        answer = await sessionRequest(target, sid, "tools/call", { name: "test_simple_text", arguments: {} });
        if (answer.status === 404 || Date.now() - started > 2000) break;
        await sleep(20);
      }
      expect(answer.status === 404, `tools/call on ${target.name} after DELETE: expected 404, got ${describe(answer)}`);
      return `${Date.now() - started} ms after DELETE`;
    });
  }
};

// An instance's address on the bus, from its log (`bus subscribed ... own=mcp:bus:ADDRESS`).
function busAddress(x) {
  const m = readFileSync(x.log, "utf8").match(/bus subscribed channel=mcp:bus own=mcp:bus:([0-9a-zA-Z]+)/);
  expect(m, `no bus address in ${x.name}'s log`);
  return m[1];
}

// A raw RESP subscriber on every channel of the deployment's bus (`mcp:bus` and each instance's
// `mcp:bus:ADDRESS`, the default prefix): on one Redis, PSUBSCRIBE mcp:bus*; on a Cluster, where
// they are sharded channels, SSUBSCRIBE to each on every master (the one owning its slot
// confirms, the others answer MOVED). `bytes()` counts what arrived after the confirmations;
// `text()` is it.
async function busSubscriber() {
  const { connect } = await import("node:net");
  const frame = (...args) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`;
  const cluster = state.redis_cluster === "1";
  const channels = ["mcp:bus", ...inst.map((x) => `mcp:bus:${busAddress(x)}`)];
  const ports = cluster
    ? clusterNodes(Number(state.redis_port)).filter((n) => n.flags.includes("master") && !n.flags.some((f) => f.startsWith("fail"))).map((n) => n.port)
    : [Number(state.redis_port)];
  let received = "";
  const sockets = ports.map((port) => {
    const socket = connect(port, "127.0.0.1");
    socket.on("data", (chunk) => (received += chunk.toString("latin1")));
    socket.on("error", () => {});
    if (cluster) for (const channel of channels) socket.write(frame("SSUBSCRIBE", channel));
    else socket.write(frame("PSUBSCRIBE", "mcp:bus*"));
    return socket;
  });
  const confirmations = () => (received.match(cluster ? /ssubscribe/g : /psubscribe/g) || []).length;
  const started = Date.now();
  while (confirmations() < (cluster ? channels.length : 1)) {
    expect(Date.now() - started < 5000, `the bus subscription was not confirmed: ${short(received)}`);
    await sleep(10);
  }
  await sleep(50);
  const base = received.length;
  return { bytes: () => received.length - base, text: () => received.slice(base), close: () => sockets.forEach((socket) => socket.destroy()) };
}

scenarios["bus-carries-only-minted-answers"] = async (s) => {
  let sid;
  let bus;
  await step(s, "a session initialized on A, a subscriber on the Redis bus", async () => {
    sid = await initializeSession(A);
    bus = await busSubscriber();
  });
  try {
    await step(s, "responses to ids no instance minted (256 KiB each) POSTed to B travel nowhere", async () => {
      const pad = "x".repeat(256 * 1024);
      for (const id of ["s1", "s2", "s7.0123456789abcdef", 5, "forged"]) {
        const reply = await sessionPost(B, sid, { jsonrpc: "2.0", id, result: { pad } });
        expect(reply.status === 202, `a response with id ${JSON.stringify(id)}: expected 202, got ${describe(reply)}`);
      }
      // A cancellation naming an id longer than any request may have is not broadcast either.
      const reply = await sessionPost(B, sid, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "r".repeat(4096) } });
      expect(reply.status === 202, `the cancellation: expected 202, got ${describe(reply)}`);
      await sleep(300);
      expect(bus.bytes() < 2048, `the bus carried ${bus.bytes()} bytes: ${short(bus.text())}`);
      expect(!bus.text().includes("client_answered"), `a forged answer was published: ${short(bus.text())}`);
      return `${bus.bytes()} bytes on the bus`;
    });
    await step(s, "a real answer (to A's elicitation, POSTed to B) does travel, once, and completes on A", async () => {
      await elicitationAnsweredElsewhere(sid, A, B);
      // The subscriber's socket may be read after A's stream: give it a moment.
      const answersSeen = () => bus.text().split("client_answered").length - 1;
      const started = Date.now();
      while (answersSeen() < 1 && Date.now() - started < 2000) await sleep(10);
      await sleep(100);
      const answers = answersSeen();
      expect(answers === 1, `expected the answer on the bus once, saw it ${answers} times (${bus.bytes()} bytes: ${short(bus.text())})`);
    });
    await step(s, "it travelled on A's own channel, not on the one every instance hears", async () => {
      const [a, b, c] = [A, B, C].map(busAddress);
      const text = bus.text();
      expect(text.includes(`mcp:bus:${a}`), `not on A's channel mcp:bus:${a}: ${short(text)}`);
      expect(!text.includes(`mcp:bus:${b}`) && !text.includes(`mcp:bus:${c}`), `on B's or C's channel: ${short(text)}`);
      expect(!/\r\nmcp:bus\r\n/.test(text), `on mcp:bus, which every instance hears: ${short(text)}`);
      return `mcp:bus:${a.slice(0, 8)}…`;
    });
  } finally {
    bus?.close();
    await deleteSession(A, sid);
  }
};

scenarios["sessions-through-nginx"] = async (s) => {
  let sid;
  await step(s, "initialize through nginx", async () => {
    sid = await initializeSession(NGINX);
  });
  await step(s, "12 requests through nginx in that session answer 200", async () => {
    for (let i = 0; i < 12; i++) {
      const answer = await sessionRequest(NGINX, sid, i % 2 ? "ping" : "tools/call", i % 2 ? {} : { name: "test_simple_text", arguments: {} });
      resultOf(answer, `request ${i + 1}`);
    }
  });
  await step(s, "DELETE through nginx, then 404 through nginx", async () => {
    const status = await deleteSession(NGINX, sid);
    expect(status === 204, `DELETE: expected 204, got ${status}`);
    await sleep(50);
    for (let i = 0; i < count; i++) {
      const answer = await sessionRequest(NGINX, sid, "ping");
      expect(answer.status === 404, `ping ${i + 1} after DELETE: expected 404, got ${describe(answer)}`);
    }
  });
};

scenarios["task-across-instances"] = async (s) => {
  let id;
  await step(s, "multi_input started on A is a task", async () => {
    id = (await startTask(A, "multi_input", {})).taskId;
  });
  await step(s, "tasks/get through B sees it input_required with both questions", async () => {
    const t = await waitTask(B, id, (t) => t.status === "input_required" && Object.keys(t.inputRequests || {}).length === 2, "input_required with 2 questions");
    expect(JSON.stringify(Object.keys(t.inputRequests).sort()) === '["first","second"]', `questions: ${short(t.inputRequests)}`);
  });
  await step(s, "tasks/update through B answers the first question", async () => {
    expectAck(await taskRequest(B, "tasks/update", id, { inputResponses: { first: { action: "accept", content: { name: "Ada" } } } }), "tasks/update on B");
  });
  await step(s, "tasks/get through C: only the second question is pending", async () => {
    const t = await waitTask(C, id, (t) => t.status === "input_required" && Object.keys(t.inputRequests || {}).join() === "second", "only `second` pending");
    return t.status;
  });
  await step(s, "tasks/cancel through C is acknowledged", async () => {
    expectAck(await taskRequest(C, "tasks/cancel", id), "tasks/cancel on C");
  });
  await step(s, "tasks/get through A (where it runs) shows cancelled", async () => {
    const t = await waitTask(A, id, (t) => t.status !== "input_required" && t.status !== "working", "a final status");
    expect(t.status === "cancelled", `status ${t.status}: ${short(t)}`);
  });
  await step(s, "tasks/get through B shows cancelled too", async () => {
    const t = await getTask(B, id);
    expect(t.status === "cancelled", `status ${t.status}: ${short(t)}`);
  });
};

scenarios["task-completes-elsewhere"] = async (s) => {
  let id;
  await step(s, "confirm_delete started on B is a task", async () => {
    id = (await startTask(B, "confirm_delete", { filename: "scale-out.txt" })).taskId;
  });
  await step(s, "tasks/get through C sees the question", async () => {
    const t = await waitTask(C, id, (t) => t.status === "input_required", "input_required");
    expect(Object.keys(t.inputRequests || {}).join() === "confirm", `questions: ${short(t.inputRequests)}`);
  });
  let answeredAt;
  await step(s, "tasks/update through A answers it", async () => {
    expectAck(await taskRequest(A, "tasks/update", id, { inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }), "tasks/update on A");
    answeredAt = Date.now();
  });
  await step(s, "tasks/get through C: completed with the handler's result", async () => {
    const t = await waitTask(C, id, (t) => t.status === "completed" || t.status === "failed" || t.status === "cancelled", "a final status");
    const text = t.result?.content?.[0]?.text;
    expect(t.status === "completed" && text === "Deleted scale-out.txt", `expected completed "Deleted scale-out.txt": ${short(t)}`);
    return `${Date.now() - answeredAt} ms after the answer`;
  });
};

scenarios["cancel-running-task"] = async (s) => {
  let id;
  await step(s, "slow_compute (2 s) started on A is a task", async () => {
    id = (await startTask(A, "slow_compute", { seconds: 2, label: "scale-out" })).taskId;
  });
  await step(s, "tasks/get through B: working", async () => {
    const t = await getTask(B, id);
    expect(t.status === "working", `status ${t.status}: ${short(t)}`);
  });
  await step(s, "tasks/cancel through C is acknowledged", async () => {
    expectAck(await taskRequest(C, "tasks/cancel", id), "tasks/cancel on C");
  });
  await step(s, "tasks/get through B: cancelled", async () => {
    const t = await waitTask(B, id, (t) => t.status !== "working", "a final status");
    expect(t.status === "cancelled", `status ${t.status}: ${short(t)}`);
  });
  await step(s, "still cancelled on A and C after the handler would have finished", async () => {
    await sleep(2500);
    for (const x of [A, C]) {
      const t = await getTask(x, id);
      expect(t.status === "cancelled", `on ${x.name}: status ${t.status}: ${short(t)}`);
    }
  });
};

scenarios["tasks-through-nginx"] = async (s) => {
  let id;
  await step(s, "slow_compute (1 s) started through nginx is a task", async () => {
    id = (await startTask(NGINX, "slow_compute", { seconds: 1 })).taskId;
  });
  await step(s, `${2 * count} tasks/get through nginx (round robin) all find it, then completed`, async () => {
    for (let i = 0; i < 2 * count; i++) await getTask(NGINX, id);
    const t = await waitTask(NGINX, id, (t) => t.status !== "working", "a final status");
    const text = t.result?.content?.[0]?.text;
    expect(t.status === "completed" && text === "Computed job in 1s", `expected completed "Computed job in 1s": ${short(t)}`);
  });
};

scenarios["listen-fan-out"] = async (s) => {
  const streams = [];
  try {
    await step(s, "subscriptions/listen (toolsListChanged) open and acknowledged on every instance", async () => {
      for (const x of inst) streams.push(await openListen(x, `listen-${x.name}`));
    });
    await step(s, "tools/call test_trigger_tool_change on C answers", async () => {
      resultOf(await callTool(C, "test_trigger_tool_change"), "test_trigger_tool_change on C");
    });
    await step(s, "the stream on A receives notifications/tools/list_changed, tagged with its subscription id", async () => {
      const m = await streams[0].nextOf("notifications/tools/list_changed", SETTLES_MS);
      expect(m, `nothing within ${SETTLES_MS} ms`);
      const tag = m.params?._meta?.["io.modelcontextprotocol/subscriptionId"];
      expect(tag === "listen-A", `subscriptionId ${short(tag)}: ${short(m)}`);
    });
    await step(s, "every other stream receives it as well", async () => {
      for (const l of streams.slice(1)) {
        const m = await l.nextOf("notifications/tools/list_changed", SETTLES_MS);
        expect(m, `nothing on ${l.target.name} within ${SETTLES_MS} ms`);
      }
    });
    await step(s, "exactly once per stream (no duplicate within 1 s)", async () => {
      await sleep(1000);
      for (const l of streams) {
        const again = await l.nextOf("notifications/tools/list_changed", 10);
        expect(!again, `a second one on ${l.target.name}: ${short(again)}`);
      }
    });
  } finally {
    for (const l of streams) l.close();
  }
};

scenarios["redis-outage"] = async (s) => {
  await step(s, "the cluster has a redis-server", async () => {
    expect(state.redis_pid, "no redis_pid in the state file (SCALE_OUT_NO_REDIS=1?)");
  });
  const generation = Number(state.redis_generation);
  // The load: plain stateless calls through nginx, two at a time, until told to stop.
  const load = { on: true, answers: 0, bad: [], maxMs: 0 };
  const worker = async () => {
    while (load.on) {
      const a = await callTool(NGINX, "test_simple_text", {}, {});
      load.answers++;
      load.maxMs = Math.max(load.maxMs, a.ms);
      if (a.status !== 200 || !a.body?.result) load.bad.push(describe(a));
      await sleep(10);
    }
  };
  const workers = [worker(), worker()];
  let before;
  let oldListen;
  let sid, heldGet;
  try {
    await step(s, "before: a task started on A is seen from B", async () => {
      before = (await startTask(A, "slow_compute", { seconds: 120 })).taskId;
      await getTask(B, before);
    });
    await step(s, "before: a session initialized on A reads a list change on its GET stream", async () => {
      sid = await initializeSession(A);
      const stream = await StandaloneStream.open(A, sid);
      try {
        await trigger(B, TOOLS_CHANGED);
        heldGet = await stream.next(SETTLES_MS);
        expect(heldGet && heldGet.message.method === TOOLS_CHANGED, `expected ${TOOLS_CHANGED}: ${short(heldGet)}`);
      } finally {
        stream.close();
      }
    });
    oldListen = await Listen.open(A, "listen-before-outage", { toolsListChanged: true }).catch(() => null);

    const killedAt = Date.now();
    await step(s, `redis-server (pid ${state.redis_pid}) killed with SIGKILL`, async () => {
      process.kill(Number(state.redis_pid), "SIGKILL");
      for (let i = 0; i < 50 && alive(Number(state.redis_pid)); i++) await sleep(20);
      expect(!alive(Number(state.redis_pid)), "redis-server still runs");
    });
    await sleep(1000);
    // Each expectation on its own: one that fails does not hide the others.
    const expect503 = (a, where) => {
      expect(a.status === 503, `${where}: expected HTTP 503, got ${describe(a)}`);
      expect(a.body && a.body.error && typeof a.body.error.code === "number" && a.body.id === a.id,
        `${where}: expected a JSON-RPC error echoing id ${a.id}, got ${short(a.text)}`);
      return `${a.ms} ms, code ${a.body.error.code}`;
    };
    await check(s, "Redis gone: a new task (slow_compute, ctx.start_task) on each instance is HTTP 503 with a JSON-RPC error", async () => {
      const seen = [];
      for (const x of inst) seen.push(`${x.name} ${expect503(await callTool(x, "slow_compute", { seconds: 1 }, TASK_CAPS), `on ${x.name}`)}`);
      return seen.join("; ");
    });
    await check(s, "Redis gone: a new task (confirm_delete, ctx.require_task) on each instance is HTTP 503 with a JSON-RPC error", async () => {
      const seen = [];
      for (const x of inst) seen.push(`${x.name} ${expect503(await callTool(x, "confirm_delete", { filename: "outage.txt" }, TASK_CAPS), `on ${x.name}`)}`);
      return seen.join("; ");
    });
    await check(s, "Redis gone: tasks/get of the earlier task through B and C is HTTP 503 with a JSON-RPC error", async () => {
      for (const x of [B, C]) expect503(await taskRequest(x, "tasks/get", before), `on ${x.name}`);
      const onA = await taskRequest(A, "tasks/get", before);
      info(`redis-outage: tasks/get of the earlier task on A (where it runs) while Redis is gone: ${describe(onA)}`);
    });
    await check(s, "Redis gone: tasks/cancel of the earlier task through C is HTTP 503 with a JSON-RPC error", async () => {
      expect503(await taskRequest(C, "tasks/cancel", before), "on C");
    });
    await check(s, "Redis gone: resuming that GET stream (Last-Event-ID) on A is HTTP 503 with a JSON-RPC error", async () => {
      const stream = await StandaloneStream.open(A, sid, heldGet.id);
      stream.close();
      expect(stream.status === 503 && /"code":-32603/.test(stream.text || ""), `expected 503 with -32603, got HTTP ${stream.status} ${short(stream.text || "")}`);
    });
    await check(s, "Redis gone: a plain tools/call directly on each instance answers 200", async () => {
      for (const x of inst) resultOf(await callTool(x, "test_simple_text"), `on ${x.name}`);
    });
    await step(s, "every instance still runs while Redis is gone", async () => {
      const dead = inst.filter((x) => !alive(x.pid)).map((x) => x.name);
      expect(dead.length === 0, `exited: ${dead.join(", ")}`);
      return `Redis gone for ${Date.now() - killedAt} ms so far`;
    });

    let backAt;
    await step(s, "redis-server started again on the same port (USR1 to cluster.sh)", async () => {
      process.kill(Number(state.cluster_pid), "SIGUSR1");
      for (let i = 0; i < 200; i++) {
        await sleep(50);
        const now = readState();
        if (Number(now.redis_generation) > generation) {
          expect(now.redis_port === state.redis_port, `another port: ${now.redis_port} (was ${state.redis_port})`);
          state = now;
          backAt = Date.now();
          return `pid ${now.redis_pid}, port ${now.redis_port}, down ${backAt - killedAt} ms`;
        }
      }
      expect(false, "cluster.sh did not report a new redis-server within 10 s");
    });
    await step(s, `full service within ${RECOVERY_LIMIT_MS / 1000} s: a new task on every instance, seen from the next one`, async () => {
      const ok = new Set();
      let last = "";
      while (ok.size < inst.length) {
        for (const [i, x] of inst.entries()) {
          if (ok.has(x.name)) continue;
          const a = await callTool(x, "slow_compute", { seconds: 1 }, TASK_CAPS);
          if (a.status === 200 && a.body?.result?.resultType === "task") {
            const next = inst[(i + 1) % inst.length];
            const g = await taskRequest(next, "tasks/get", a.body.result.taskId);
            if (g.status === 200 && g.body?.result?.taskId === a.body.result.taskId) ok.add(x.name);
            else last = `tasks/get on ${next.name}: ${describe(g)}`;
          } else last = `new task on ${x.name}: ${describe(a)}`;
        }
        expect(Date.now() - backAt < RECOVERY_LIMIT_MS || ok.size === inst.length, `not within ${RECOVERY_LIMIT_MS} ms; last: ${last}`);
        if (ok.size < inst.length) await sleep(100);
      }
      return `${Date.now() - backAt} ms after Redis answered`;
    });
    await step(s, "after: a list change on C reaches a new listen stream on A", async () => {
      const l = await openListen(A, "listen-after-outage");
      try {
        const started = Date.now();
        let m = null;
        // The instances may resubscribe a moment after they reconnect: trigger again until it arrives.
        while (!m && Date.now() - started < RECOVERY_LIMIT_MS) {
          resultOf(await callTool(C, "test_trigger_tool_change"), "test_trigger_tool_change on C");
          m = await l.nextOf("notifications/tools/list_changed", 1000);
        }
        expect(m, `nothing within ${RECOVERY_LIMIT_MS} ms`);
        return `${Date.now() - started} ms`;
      } finally {
        l.close();
      }
    });
    if (oldListen && oldListen.reader) {
      const m = await oldListen.nextOf("notifications/tools/list_changed", 2000);
      info(`redis-outage: a listen stream opened on A before the outage ${m ? "received the list change after it" : oldListen.ended ? "was ended by the server (a client reopens it)" : "stayed open but received no list change after it"}`);
    }
  } finally {
    load.on = false;
    await Promise.all(workers);
    if (oldListen) oldListen.close();
  }
  await step(s, `plain tools/call through nginx answered 200 throughout (${load.answers} calls)`, async () => {
    expect(load.bad.length === 0, `${load.bad.length} of ${load.answers} did not: ${short(load.bad.slice(0, 3))}`);
    return `slowest ${load.maxMs} ms`;
  });
  await step(s, "no instance exited or panicked", async () => {
    const dead = inst.filter((x) => !alive(x.pid)).map((x) => x.name);
    expect(dead.length === 0, `exited: ${dead.join(", ")}`);
    const panics = inst.flatMap((x) => panicsIn(x.log).map((l) => `${x.name}: ${l}`));
    expect(panics.length === 0, short(panics, 800));
  });
};

scenarios["stream-resumed-elsewhere"] = async (s) => {
  let sid, lastId;
  const callId = nextId++;
  await step(s, "test_reconnection on A: the POST's SSE stream closes after its priming event, without the result", async () => {
    sid = await initializeSession(A);
    const res = await fetch(url(A), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": SESSION_V, "mcp-session-id": sid },
      body: JSON.stringify({ jsonrpc: "2.0", id: callId, method: "tools/call", params: { name: "test_reconnection", arguments: {} } }),
      signal: AbortSignal.timeout(15000),
    });
    const text = await res.text();
    expect(res.status === 200 && (res.headers.get("content-type") || "").startsWith("text/event-stream"), `expected an SSE stream, got HTTP ${res.status} ${short(text)}`);
    const ids = text.split(/\r?\n/).filter((l) => l.startsWith("id:")).map((l) => l.slice(3).trim());
    expect(ids.length > 0, `no event id on the stream: ${short(text)}`);
    expect(!sseMessages(text).some((m) => m.id === callId), `the result came on the POST stream: ${short(text)}`);
    lastId = ids.at(-1);
    return `last event ${lastId}`;
  });
  await step(s, "GET with that Last-Event-ID on B gets the result, relayed from A", async () => {
    const stream = await StandaloneStream.open(B, sid, lastId);
    try {
      expect(stream.status === 200 && stream.reader, `GET on B: expected a 200 SSE stream, got HTTP ${stream.status} ${short(stream.text || "")}`);
      const event = await stream.next(SETTLES_MS);
      expect(event && event.message.id === callId && event.message.result, `expected the result of call ${callId}: ${short(event)}`);
      expect(JSON.stringify(event.message.result).includes("Reconnection test completed"), `not test_reconnection's result: ${short(event.message)}`);
    } finally {
      stream.close();
    }
  });
  await step(s, "a Last-Event-ID no instance issued is 400 on C", async () => {
    const stream = await StandaloneStream.open(C, sid, "2147483000-1");
    stream.close();
    expect(stream.status === 400, `expected 400, got HTTP ${stream.status} ${short(stream.text || "")}`);
  });
  await step(s, "DELETE on C", async () => {
    const status = await deleteSession(C, sid);
    expect(status === 204, `DELETE: expected 204, got ${status}`);
  });
};

/** A session-era GET stream (the standalone stream): its events as {id, message}. */
class StandaloneStream extends SseEvents {
  static async open(target, sessionId, lastEventId) {
    const g = new StandaloneStream();
    g.abort = new AbortController();
    const headers = { accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": SESSION_V };
    if (lastEventId) headers["last-event-id"] = lastEventId;
    const res = await fetch(url(target), { method: "GET", headers, signal: g.abort.signal });
    g.status = res.status;
    if (!(res.headers.get("content-type") || "").startsWith("text/event-stream")) {
      g.text = await res.text();
      return g;
    }
    g.attach(res);
    return g;
  }
  // Each event that carries a message, with its id.
  parse(block) {
    const id = block.split(/\r?\n/).find((l) => l.startsWith("id:"))?.slice(3).trim();
    const [message] = sseMessages(block);
    return message ? [{ id, message }] : [];
  }
}

// The list changes the everything server triggers, by the method they notify.
const TRIGGERS = {
  "notifications/tools/list_changed": "test_trigger_tool_change",
  "notifications/prompts/list_changed": "test_trigger_prompt_change",
};
const trigger = async (target, method) => resultOf(await callTool(target, TRIGGERS[method]), `${TRIGGERS[method]} on ${target.name}`);
const TOOLS_CHANGED = "notifications/tools/list_changed";
const PROMPTS_CHANGED = "notifications/prompts/list_changed";

// ---- a Redis Cluster losing a master ----------------------------------------------------------------
const { execFileSync } = await import("node:child_process");
const redisCli = (port, ...args) =>
  execFileSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8", timeout: 5000 });
// `CLUSTER NODES` as seen by the node on `port`: [{id, port, flags, master}].
function clusterNodes(port) {
  return redisCli(port, "cluster", "nodes").trim().split("\n").map((line) => {
    const [id, addr, flags, master] = line.split(" ");
    return { id, port: Number(addr.split("@")[0].split(":")[1]), flags: flags.split(","), master };
  });
}
const clusterNodePids = () =>
  Object.fromEntries((readState().redis_nodes || "").split(" ").filter(Boolean).map((x) => x.split(":").map(Number)));
// Every key matching `pattern` on the masters that are up (SCAN on each).
function keysOnMasters(pattern, asker) {
  const masters = clusterNodes(asker).filter((n) => n.flags.includes("master") && !n.flags.some((f) => f.startsWith("fail")));
  return masters.flatMap((m) => redisCli(m.port, "--scan", "--pattern", pattern).split("\n").filter(Boolean).map((key) => ({ key, port: m.port })));
}
// A retryable failure, as the instances answer while Redis cannot take a write: HTTP 503, or a
// JSON-RPC error whose data says retryable. The error carries the request's id, or `null` when
// the instance refused before it read the body (loading the session another instance made).
const cleanFailure = (a) => {
  const error = (a.body ?? a.messages?.find((m) => m && m.id === null))?.error;
  return Boolean(error) && (a.status === 503 || error.data?.retryable === true);
};

scenarios["master-failover"] = async (s) => {
  await step(s, "the deployment shares a Redis Cluster", async () => {
    expect(state.redis_cluster === "1", "not a Redis Cluster (SCALE_OUT_REDIS_CLUSTER=1)");
  });
  const pids = clusterNodePids();
  const ports = Object.keys(pids).map(Number);
  const sessions = [];
  const tasks = [];
  await step(s, "before: 12 sessions initialized and 6 tasks started through nginx", async () => {
    for (let i = 0; i < 12; i++) sessions.push(await initializeSession(NGINX));
    for (let i = 0; i < 6; i++) tasks.push((await startTask(NGINX, "slow_compute", { seconds: 120 })).taskId);
  });
  let victim;
  await step(s, "the master holding the most of them is chosen", async () => {
    const mine = (key) => sessions.some((id) => key.endsWith(`:${id}`)) || tasks.some((id) => key.endsWith(`:${id}`));
    const held = {};
    for (const { key, port } of [...keysOnMasters("mcp:session:*", ports[0]), ...keysOnMasters("mcp:task:*", ports[0])]) {
      if (mine(key)) held[port] = (held[port] || 0) + 1;
    }
    const [port, count] = Object.entries(held).sort((a, b) => b[1] - a[1])[0] || [];
    expect(port, `no master holds them: ${JSON.stringify(held)}`);
    const nodes = clusterNodes(ports[0]);
    victim = nodes.find((n) => n.port === Number(port));
    victim.pid = pids[victim.port];
    victim.replica = nodes.find((n) => n.master === victim.id);
    expect(victim.replica, `no replica of 127.0.0.1:${port}: ${short(nodes)}`);
    return `127.0.0.1:${port} holds ${count} of 18 (${JSON.stringify(held)}); its replica 127.0.0.1:${victim.replica.port}`;
  });
  const load = { on: true, answers: 0, unavailable: 0, bad: [], sessions: [], tasks: [] };
  const tally = (a) => {
    load.answers++;
    if (a.status === 200 && a.body && "result" in a.body) return true;
    if (cleanFailure(a)) load.unavailable++;
    else load.bad.push(describe(a));
    return false;
  };
  const workers = [
    (async () => {
      for (let i = 0; load.on; i++) {
        tally(await sessionRequest(NGINX, sessions[i % sessions.length], "tools/call", { name: "test_simple_text", arguments: {} }));
        await sleep(5);
      }
    })(),
    (async () => {
      while (load.on) {
        const a = await sessionPost(NGINX, null, {
          jsonrpc: "2.0", id: nextId++, method: "initialize",
          params: { protocolVersion: SESSION_V, capabilities: {}, clientInfo: { name: "failover", version: "1" } },
        });
        if (tally(a)) load.sessions.push(a.session);
        await sleep(20);
      }
    })(),
    (async () => {
      while (load.on) {
        const a = await callTool(NGINX, "slow_compute", { seconds: 120 }, TASK_CAPS);
        if (tally(a) && a.body.result.resultType === "task") load.tasks.push(a.body.result.taskId);
        await sleep(20);
      }
    })(),
  ];
  let promoted;
  try {
    await sleep(500);
    const killedAt = Date.now();
    await step(s, `master 127.0.0.1:${victim.port} (pid ${victim.pid}) killed with SIGKILL under load`, async () => {
      process.kill(victim.pid, "SIGKILL");
      for (let i = 0; i < 100 && alive(victim.pid); i++) await sleep(20);
      expect(!alive(victim.pid), "the node still runs");
    });
    await step(s, "its replica is promoted (within 15 s)", async () => {
      for (;;) {
        const nodes = clusterNodes(victim.replica.port);
        const replica = nodes.find((n) => n.id === victim.replica.id);
        if (replica && replica.flags.includes("master")) {
          promoted = replica;
          return `127.0.0.1:${replica.port}, ${Date.now() - killedAt} ms after the kill`;
        }
        expect(Date.now() - killedAt < 15000, `not promoted: ${short(nodes)}`);
        await sleep(100);
      }
    });
    await sleep(2000);
  } finally {
    load.on = false;
    await Promise.all(workers);
  }
  await check(s, "every request under load answered a result or a clean retryable error", async () => {
    expect(load.bad.length === 0, `${load.bad.length} of ${load.answers} did not: ${short(load.bad.slice(0, 3))}`);
    return `${load.answers} requests, ${load.unavailable} retryable errors, ${load.sessions.length} sessions and ${load.tasks.length} tasks acknowledged under load`;
  });
  // The three checks below are independent, and each lets the scenario go on: the killed node
  // must be started again whatever they find, or every later write waiting for a replica of
  // its slots times out (and the scenarios after this one fail for it).
  const allSessions = [...sessions, ...load.sessions];
  const allTasks = [...tasks, ...load.tasks];
  await check(s, "every acknowledged session and task is still in the cluster (SCAN of the masters)", async () => {
    const survivor = promoted.port;
    const keys = new Set([...keysOnMasters("mcp:session:*", survivor), ...keysOnMasters("mcp:task:*", survivor)].map((k) => k.key.split(":").at(-1)));
    const lost = [...allSessions, ...allTasks].filter((id) => !keys.has(id));
    expect(lost.length === 0, `${lost.length} of ${allSessions.length + allTasks.length} acknowledged are gone: ${short(lost)}`);
    return `${allSessions.length} sessions, ${allTasks.length} tasks`;
  });
  await check(s, "each acknowledged session serves tools/call on A, B and C; each task answers tasks/get there", async () => {
    for (const target of [A, B, C]) {
      for (const sid of allSessions) resultOf(await sessionRequest(target, sid, "tools/call", { name: "test_simple_text", arguments: {} }), `session ${sid.slice(0, 8)} on ${target.name}`);
      for (const id of allTasks) await getTask(target, id);
    }
  });
  await step(s, "the killed node, started again (USR1), rejoins as a replica and syncs", async () => {
    process.kill(Number(state.cluster_pid), "SIGUSR1");
    const started = Date.now();
    for (;;) {
      const back = clusterNodes(promoted.port).find((n) => n.port === victim.port);
      // A replica again, and synced: a write waiting for a replica (--redis-wait-replicas)
      // would otherwise time out while its first sync runs.
      const synced = () => /master_link_status:up/.test(redisCli(victim.port, "info", "replication"));
      if (back && back.flags.includes("slave") && !back.flags.some((f) => f.startsWith("fail")) && synced()) {
        return `${Date.now() - started} ms`;
      }
      expect(Date.now() - started < 20000, `not back: ${short(back)}`);
      await sleep(200);
    }
  });
  await step(s, "then a new session and a new task work through every instance", async () => {
    const started = Date.now();
    for (const target of [A, B, C]) {
      for (;;) {
        // Its first sync may still be running: the WAIT for a replica is then short of one.
        const sid = await initializeSession(target).catch((e) => e);
        const task = typeof sid === "string" ? await callTool(target, "slow_compute", { seconds: 1 }, TASK_CAPS) : null;
        if (typeof sid === "string" && task?.body?.result?.resultType === "task") break;
        expect(Date.now() - started < 10000, `on ${target.name}: ${typeof sid === "string" ? describe(task) : sid.message}`);
        await sleep(200);
      }
    }
    return `${Date.now() - started} ms`;
  });
  await step(s, "no instance exited or panicked", async () => {
    const dead = inst.filter((x) => !alive(x.pid)).map((x) => x.name);
    expect(dead.length === 0, `exited: ${dead.join(", ")}`);
    const panics = inst.flatMap((x) => panicsIn(x.log).map((l) => `${x.name}: ${l}`));
    expect(panics.length === 0, short(panics, 800));
  });
};

scenarios["instance-killed"] = async (s) => {
  let id, sid, stream, lastRead;
  await step(s, "slow_compute (60 s) started on A is a task, working as seen from B", async () => {
    id = (await startTask(A, "slow_compute", { seconds: 60 })).taskId;
    const t = await getTask(B, id);
    expect(t.status === "working", `on B: ${short(t)}`);
  });
  await step(s, "a session initialized on B has its GET stream on A, which carries two list changes triggered on C", async () => {
    sid = await initializeSession(B);
    stream = await StandaloneStream.open(A, sid);
    expect(stream.status === 200 && stream.reader, `GET on A: expected a 200 SSE stream, got HTTP ${stream.status} ${short(stream.text || "")}`);
    for (const method of [TOOLS_CHANGED, PROMPTS_CHANGED]) {
      await trigger(C, method);
      const event = await stream.next(SETTLES_MS);
      expect(event && event.message.method === method && /^0-\d+$/.test(event.id || ""), `expected ${method} with an event id, got ${short(event)}`);
      lastRead = event.id;
    }
    // Sent by A, never read by this client: it is lost with A unless the resumption replays it.
    await trigger(C, TOOLS_CHANGED);
    await sleep(300);
    return `last read ${lastRead}`;
  });
  await step(s, `A (pid ${A.pid}) killed with SIGKILL`, async () => {
    // The kernel frees a killed process's memory before it is gone; on a loaded two-core CI machine
    // that has taken over a second, so wait up to 10 s and say how long it took.
    const killed = Date.now();
    process.kill(A.pid, "SIGKILL");
    while (alive(A.pid) && Date.now() - killed < 10000) await sleep(20);
    expect(!alive(A.pid), `A still runs 10 s after SIGKILL: ${procState(A.pid)}`);
    return `gone after ${Date.now() - killed} ms`;
  });
  await step(s, "tasks/get through B says failed once A's lease is gone (within 15 s), naming why", async () => {
    const started = Date.now();
    let t;
    for (;;) {
      t = await getTask(B, id);
      if (t.status !== "working") break;
      expect(Date.now() - started < 15000, `still working after 15 s: ${short(t)}`);
      await sleep(250);
    }
    expect(t.status === "failed" && /stopped before it finished/.test(t.error?.message || ""),
      `expected failed with the reason: ${short(t)}`);
    return `after ${Date.now() - started} ms`;
  });
  await step(s, "C sees it failed too, and B and C still answer plain calls", async () => {
    const t = await getTask(C, id);
    expect(t.status === "failed", `on C: ${short(t)}`);
    for (const x of [B, C]) resultOf(await callTool(x, "test_simple_text"), `test_simple_text on ${x.name}`);
  });
  await step(s, "the GET stream resumed through nginx with Last-Event-ID gets every event it missed, in order, once, then live ones", async () => {
    stream.close();
    // Two more while no instance holds the stream.
    await trigger(C, PROMPTS_CHANGED);
    await trigger(B, TOOLS_CHANGED);
    const resumed = await StandaloneStream.open(NGINX, sid, lastRead);
    try {
      expect(resumed.status === 200 && resumed.reader, `GET with Last-Event-ID ${lastRead}: expected a 200 SSE stream, got HTTP ${resumed.status} ${short(resumed.text || "")}`);
      const missed = [];
      for (let event; (event = await resumed.next(missed.length < 3 ? SETTLES_MS : 500)); ) missed.push(event);
      const methods = missed.map((e) => e.message.method);
      expect(JSON.stringify(methods) === JSON.stringify([TOOLS_CHANGED, PROMPTS_CHANGED, TOOLS_CHANGED]),
        `expected the unread tools change, then prompts and tools: ${short(missed)}`);
      const numbers = [lastRead, ...missed.map((e) => e.id)].map((i) => BigInt(i.split("-")[1]));
      expect(numbers.every((n, i) => i === 0 || n > numbers[i - 1]), `event ids not increasing: ${short(missed.map((e) => e.id))}`);
      await trigger(C, PROMPTS_CHANGED);
      const live = await resumed.next(SETTLES_MS);
      expect(live && live.message.method === PROMPTS_CHANGED && BigInt(live.id.split("-")[1]) > numbers.at(-1), `the next change, live: ${short(live)}`);
      const extra = await resumed.next(500);
      expect(!extra, `a duplicate or stray event: ${short(extra)}`);
      return `replayed ${missed.map((e) => e.id).join(", ")}`;
    } finally {
      resumed.close();
    }
  });
};

// ---- run -------------------------------------------------------------------------------------------
info(`cluster: nginx ${NGINX.port}, instances ${inst.map((x) => `${x.name}=${x.port}`).join(" ")}, redis ${state.redis_port || "none"}`);
const needs = { "stream-resumed-elsewhere": 3, "session-across-instances": 3, "task-across-instances": 3, "task-completes-elsewhere": 3, "cancel-running-task": 3, "listen-fan-out": 3, "redis-outage": 3, "master-failover": 3, "instance-killed": 3 };
for (const name of only) {
  if ((needs[name] || 1) > count) {
    failed++;
    console.log(`FAIL ${name}: needs ${needs[name]} instances, the cluster has ${count}`);
    continue;
  }
  try {
    await scenarios[name](name);
  } catch (e) {
    if (!(e instanceof StepFailed) || e.message !== "scenario ended") {
      failed++;
      console.log(`FAIL ${name}: ${e?.stack || e}`);
    }
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
