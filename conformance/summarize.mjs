// summarize.mjs RUN_NAME RUN_DIR EXIT_STATUS [baseline]
//
// Helper of run.sh: counts the checks of one conformance run and prints its report.
//   * RUN_DIR/server-<scenario>-<ISO stamp>/checks.json: one file per scenario, written by the suite
//     (`-o RUN_DIR`); RUN_DIR/auth/<name>-<ISO stamp>/checks.json for `auth/<name>`. Statuses: SUCCESS = passed, FAILURE = failed, WARNING = warning; INFO and
//     SKIPPED are not counted (the suite's own `Total:` line counts the same way).
//   * RUN_DIR/suite.log: the suite's stdout+stderr. Used (a) for scenarios that crashed before writing
//     a checks.json (the suite then reports a synthetic FAILURE in its SUMMARY only), (b) for the
//     "Not scored for R" block of --requirements runs, (c) for the baseline verdict in
//     --expected-failures mode (unexpected failures and stale entries).
// Output: `RUN: N passed, M failed, W warnings`, indented detail lines, and as the last line
// `=counts N M W U` for run.sh (U = unexpected/stale baseline entries; 0 without a baseline).
import fs from 'node:fs';
import path from 'node:path';

const [name, runDir, rcArg, mode] = process.argv.slice(2);
const rc = Number(rcArg);
const baseline = mode === 'baseline';
const oneLine = (s, n = 200) => {
  const t = String(s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
};

// ---- checks.json files --------------------------------------------------------------------------
let passed = 0, failed = 0, warnings = 0;
const failures = [];   // `scenario:check-id — message`
const warns = [];
const seen = new Set(); // scenarios that wrote a checks.json
// A scenario's folder is RUN_DIR/<kind>-<scenario>-<stamp>, or one level deeper for a scenario
// whose name has a slash: `auth/metadata-default` writes RUN_DIR/auth/metadata-default-<stamp>.
function* scenarioDirs(dir, prefix, depth) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const sub = path.join(dir, entry.name);
    if (fs.existsSync(path.join(sub, 'checks.json'))) yield [sub, prefix + entry.name];
    else if (depth > 0) yield* scenarioDirs(sub, `${prefix}${entry.name}/`, depth - 1);
  }
}
for (const [dir, rel] of scenarioDirs(runDir, '', 1)) {
  const file = path.join(dir, 'checks.json');
  // server-<scenario>-2025-01-02T03-04-05-678Z  ->  <scenario>
  const scenario = rel.replace(/^(server|client)-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
  seen.add(scenario);
  let checks;
  try {
    checks = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    failed++;
    failures.push(`${scenario}:(unreadable checks.json) — ${oneLine(e.message)}`);
    continue;
  }
  for (const c of checks) {
    if (c.status === 'SUCCESS') passed++;
    else if (c.status === 'FAILURE') {
      failed++;
      failures.push(`${scenario}:${c.id} — ${oneLine(c.errorMessage || c.description)}`);
    } else if (c.status === 'WARNING') {
      warnings++;
      warns.push(`${scenario}:${c.id} — ${oneLine(c.errorMessage || c.description)}`);
    }
  }
}

// ---- the suite's own output ---------------------------------------------------------------------
const logFile = path.join(runDir, 'suite.log');
const log = fs.existsSync(logFile)
  ? fs.readFileSync(logFile, 'utf8').replace(/\x1b\[[0-9;]*m/g, '') // strip colours
  : '';
const lines = log.split(/\r?\n/);
const notes = [];

// (a) SUMMARY lines for scenarios without a checks.json ("Failed to run scenario ...").
let suiteTotal = null;
for (const l of lines) {
  const m = l.match(/^[✓✗] (\S+): (\d+) passed, (\d+) failed$/);
  if (m && !seen.has(m[1])) {
    passed += +m[2];
    failed += +m[3];
    failures.push(`${m[1]}:(no checks.json) — the suite could not run this scenario; see suite.log`);
  }
  const t = l.match(/^Total: (\d+) passed, (\d+) failed$/);
  if (t) suiteTotal = [+t[1], +t[2]];
}
if (suiteTotal && (suiteTotal[0] !== passed || suiteTotal[1] !== failed)) {
  notes.push(`note: the suite's own Total line says ${suiteTotal[0]} passed, ${suiteTotal[1]} failed`);
}

// (b) --requirements: which scenarios were run but not scored (they still count here).
const ns = log.match(/^Not scored for (\S+): .*$/m);
if (ns) {
  const idx = lines.findIndex((l) => l.startsWith('Not scored for '));
  const names = [];
  for (const l of lines.slice(idx + 1)) {
    const m = l.match(/^ {2}[✓✗] (\S+)/);
    if (!m) break;
    names.push(m[1]);
  }
  notes.push(`${oneLine(ns[0])} [${names.join(', ')}]`);
}

// (c) baseline verdict.
let unexpected = 0;
const baselineLines = [];
if (baseline) {
  let section = null;
  for (const l of lines) {
    if (/^Stale baseline entries/.test(l)) section = 'stale';
    else if (/^Unexpected failures \(not in baseline\)/.test(l)) section = 'unexpected';
    else if (/^Expected failures \(in baseline\)/.test(l)) section = 'expected';
    else if (l.trim() === '') section = null;
    else if (section && /^ {2}[✓✗~] /.test(l)) {
      const entry = l.slice(4);
      if (section !== 'expected') unexpected++;
      baselineLines.push(`${section === 'expected' ? 'expected' : section}: ${entry}`);
    }
  }
}

// A run that failed without any failed check (usage error, crash, killed by the wall-clock cap)
// must still show up as a failure.
if (rc !== 0 && (baseline ? unexpected : failed) === 0) {
  // Prefer the suite's own error text ("Validation error: ... Unknown scenario 'x'"), else the tail.
  const nonEmpty = lines.filter((l) => l.trim());
  const e = nonEmpty.findIndex((l) => /error/i.test(l));
  const pick = e >= 0 ? nonEmpty.slice(e, e + 2) : nonEmpty.slice(-3);
  const tail = pick.map((l) => oneLine(l, 160)).join(' | ');
  failures.push(`(run):exit-status-${rc} — ${tail || 'no output'}`);
  if (baseline) unexpected = 1;
  else failed = Math.max(failed, 1);
}
if (rc !== 0 && rc !== 1) notes.push(`suite exited with status ${rc}${rc === 124 ? ' (killed by the wall-clock cap)' : ''}`);

console.log(`${name}: ${passed} passed, ${failed} failed, ${warnings} warnings` +
  (baseline ? ` (baseline: ${unexpected} unexpected or stale)` : ''));
for (const f of failures) console.log(`  ✗ ${f}`);
for (const w of warns) console.log(`  ~ ${w} (warning)`);
for (const b of baselineLines) console.log(`  baseline ${b}`);
for (const n of notes) console.log(`  ${n}`);
console.log(`=counts ${passed} ${failed} ${warnings} ${unexpected}`);
