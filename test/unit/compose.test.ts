import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

// docker-compose.yml as Compose v2 reads it (README "Operating it": v2 is required).
const ROOT = path.resolve(__dirname, '../..');
interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
}
const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;

describe('docker-compose.yml', () => {
  it('when an image is pulled, then it is pinned to a version, never latest', () => {
    for (const [name, s] of Object.entries(services)) {
      if (s.build) continue;
      expect({ name, image: s.image }).toEqual({ name, image: expect.stringMatching(/^[\w./-]+:(?!latest$)[\w.-]+$/) });
    }
  });

  it('when deployed, then a worker service runs the jobs apart from API replicas that do not', () => {
    const apis = Object.entries(services).filter(([, s]) => s.command?.join(' ') === 'npm start');
    expect(apis.length).toBeGreaterThanOrEqual(2);
    for (const [, s] of apis) expect(s.environment?.RUN_JOBS).toBe('false');
    expect(services.worker?.command).toEqual(['npm', 'run', 'worker']);
    expect(services.worker?.environment?.WORKER_METRICS_PORT).toBe('9464');
  });

  it('when the ops profile is on, then prometheus scrapes every replica and the worker with ops/prometheus.yml', () => {
    const prom = services.prometheus!;
    expect(prom.profiles).toEqual(['ops']);
    expect(prom.volumes).toContain('./ops/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
    const cfg = parse(fs.readFileSync(path.join(ROOT, 'ops/prometheus.yml'), 'utf8')) as { scrape_configs: Array<{ job_name: string; static_configs?: Array<{ targets: string[] }>; dns_sd_configs?: Array<{ names: string[] }> }> };
    const targets = cfg.scrape_configs.flatMap((c) => [...(c.static_configs ?? []).flatMap((x) => x.targets), ...(c.dns_sd_configs ?? []).flatMap((x) => x.names)]);
    const apis = Object.keys(services).filter((n) => services[n]!.command?.join(' ') === 'npm start');
    for (const a of apis) expect(targets).toContain(`${a}:3000`);
    expect(targets).toContain('worker');
    for (const [name, s] of Object.entries(services)) if (name !== 'prometheus' && name !== 'grafana') expect(s.profiles).toBeUndefined();
  });

  it('when the dashboard is imported, then it is valid JSON plotting the documented families', () => {
    const dash = JSON.parse(fs.readFileSync(path.join(ROOT, 'ops/grafana-dashboard.json'), 'utf8')) as { panels: Array<{ targets: Array<{ expr: string }> }> };
    const exprs = dash.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
    for (const family of ['http_request_duration_seconds', 'http_requests_in_flight', 'db_pool_connections', 'jobs_waiting', 'jobs_oldest_waiting_seconds', 'stripe_events_processed_total', 'webhook_deliveries_total', 'cache_hits_total', 'cache_misses_total', 'rate_limit_refusals_total']) {
      expect(exprs).toContain(family);
    }
  });
});
