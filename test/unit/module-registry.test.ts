import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../../src/context';
import { buildRouteHandlers, route, type LimiterRef } from '../../src/http/define-routes';
import { defineLimiter, fixed, SHARED_LIMITERS, type Limiter, type Limiters } from '../../src/http/rate-limits';
import { LOCALES } from '../../src/integrations/mail';
import { appModules, collected, ledgerChecks, limiters, subscribers } from '../../src/modules';
import type { AppModule } from '../../src/modules/define-module';

// docs/architecture/extending.md promises that a module is added in one place and that a notification type,
// a payment event kind and a limited read each touch few files; these cases keep the structure
// that makes those counts true.

const ROOT = path.resolve(__dirname, '../..');
const MODULES_DIR = path.join(ROOT, 'src/modules');
const folders = fs
  .readdirSync(MODULES_DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

const routeTables = (m: AppModule) => (typeof m.routes === 'function' ? m.routes(collected) : (m.routes ?? []));
const limiterOf = (ref: LimiterRef): string | Limiter => (typeof ref === 'string' || 'spec' in ref ? ref : ref.name);

describe('module declarations (src/modules/<name>/<name>.module.ts, collected by src/modules/index.ts)', () => {
  it('when src/modules is listed, then every module folder has its module file, named after the folder', () => {
    for (const name of folders) {
      const file = path.join(MODULES_DIR, name, `${name}.module.ts`);
      expect([name, fs.existsSync(file)]).toEqual([name, true]);
      expect([name, fs.readFileSync(file, 'utf8').includes(`name: '${name}',`)]).toEqual([name, true]);
    }
  });

  it('when the collector is read, then it lists every module folder exactly once', () => {
    expect(appModules.map((m) => m.name).sort()).toEqual(folders);
  });

  it('when the notification types are collected, then each type with a toggle has a label in every locale', () => {
    const { toggled, label } = collected.notificationTypes;
    expect(toggled.length).toBeGreaterThan(0);
    for (const type of toggled) {
      for (const locale of LOCALES) expect([type, locale, label(locale, type).trim() !== '']).toEqual([type, locale, true]);
      expect([type, new Set(LOCALES.map((l) => label(l, type))).size > 1]).toEqual([type, true]);
    }
  });

  it('when a module declares notification types, then each is declared by that module only', () => {
    const owners = new Map<string, string[]>();
    for (const m of appModules) for (const type of Object.keys(m.notificationTypes ?? {})) owners.set(type, [...(owners.get(type) ?? []), m.name]);
    expect([...owners].filter(([, by]) => by.length > 1)).toEqual([]);
    expect([...collected.notificationTypes.toggled].every((t) => owners.has(t))).toBe(true);
  });

  it("when a route names a limiter, then it is a shared one or one its own module lists in `limiters`", () => {
    const shared = new Set<string | Limiter>([...Object.keys(SHARED_LIMITERS), ...Object.values(SHARED_LIMITERS)]);
    const strays: string[] = [];
    for (const m of appModules) {
      const own = new Set<string | Limiter>(m.limiters ?? []);
      for (const table of routeTables(m)) {
        for (const r of table.routes) {
          for (const ref of r.limiters ?? []) {
            const l = limiterOf(ref);
            if (!shared.has(l) && !own.has(l)) strays.push(`${m.name}: ${r.method} ${table.prefix}${r.path} uses ${typeof l === 'string' ? l : l.name}`);
          }
        }
      }
    }
    expect(strays).toEqual([]);
  });

  it('when a route names a limiter no module lists, then mounting it throws (the app does not start)', () => {
    const stray = defineLimiter('stray', { windowMs: 60_000, limit: fixed(1), key: 'ip', message: 'x' });
    const r = route({ method: 'get', path: '/x', auth: 'none', limiters: [stray], handler: () => ({}) });
    const built = { global: () => undefined, public: () => undefined } as unknown as Limiters;
    expect(() => buildRouteHandlers(r, {} as AppContext, built)).toThrow('limiter stray is used by a route but listed by no module');
    expect(() => buildRouteHandlers({ ...r, limiters: ['public'] }, {} as AppContext, built)).not.toThrow();
  });

  it('when limiters are collected, then no two share a name (a name is a store prefix)', () => {
    const names = limiters.map((l) => l.name);
    expect(names.length).toBe(new Set(names).size);
  });

  it('when handlers, checks and subscribers are collected, then each comes from a module and none is lost', () => {
    const declaredKinds = appModules.flatMap((m) => Object.keys(m.webhookHandlers?.handlers ?? {}));
    expect(Object.keys(collected.webhookHandlers).sort()).toEqual([...new Set(declaredKinds)].sort());
    expect(Object.keys(ledgerChecks)).toEqual(appModules.flatMap((m) => Object.keys(m.checks ?? {})));
    expect(Object.keys(ledgerChecks)).toEqual(expect.arrayContaining(['groups balance', 'campaign counters', 'donation counters']));
    expect(subscribers.map((s) => s.name)).toEqual(appModules.flatMap((m) => (m.subscribers ?? []).map((s) => s.name)));
  });
});

describe('docs/architecture/extending.md', () => {
  it('when it names a file of src/, then the file exists', () => {
    const text = fs.readFileSync(path.join(ROOT, 'docs/architecture/extending.md'), 'utf8');
    const named = [...text.matchAll(/`(src\/[^`<>*\s]+\.ts)`/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((f) => !fs.existsSync(path.join(ROOT, f)))).toEqual([]);
  });
});
