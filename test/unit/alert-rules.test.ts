import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// The alert rules of ops/prometheus/ under Prometheus's own rule tester (Debian's `prometheus`
// package ships promtool). Without promtool the test is skipped here, but CI=true or
// REQUIRE_PROMTOOL=1 make a missing promtool fail it, as for the PgBouncer tests.
const OPS = path.resolve(__dirname, '../../ops/prometheus');
const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => fs.existsSync(p)) ?? null;
const required = process.env.CI === 'true' || process.env.REQUIRE_PROMTOOL === '1';
if (!promtool) process.stderr.write(`alert-rules.test: promtool is not installed (apt-get install prometheus)${required ? ', but CI=true / REQUIRE_PROMTOOL=1 require it' : ': skipped'}\n`);
const run = promtool || required ? test : test.skip;

describe('alert rules (ops/prometheus/alerts.yml)', () => {
  run('when promtool checks and unit-tests them, then the rules are valid and every test case passes', () => {
    expect(promtool).not.toBeNull();
    const check = spawnSync(promtool!, ['check', 'rules', 'alerts.yml'], { cwd: OPS, encoding: 'utf8' });
    expect(check.stdout + check.stderr).toMatch(/SUCCESS/);
    expect(check.status).toBe(0);
    const t = spawnSync(promtool!, ['test', 'rules', 'alerts.test.yml'], { cwd: OPS, encoding: 'utf8' });
    expect(t.stdout + t.stderr).toMatch(/SUCCESS/);
    expect(t.status).toBe(0);
  });

  test('when the rules are read, then the two backup alerts watch the two backup gauges with 26 hours and 8 days', () => {
    const rules = fs.readFileSync(path.join(OPS, 'alerts.yml'), 'utf8');
    expect(rules).toMatch(/alert: BackupMissing\n\s+expr: time\(\) - max\(backup_last_success_timestamp_seconds\) > 26 \* 3600/);
    expect(rules).toMatch(/alert: BackupNotVerified\n\s+expr: time\(\) - max\(backup_last_verified_timestamp_seconds\) > 8 \* 86400/);
  });
});
