import fs from 'node:fs';
import path from 'node:path';
import { PAGE, ROOT, declaredEvents, emitSites, moduleOf, renderEventCatalogue } from '../../scripts/event-catalogue';
import { appModules } from '../../src/modules';
import { WEBHOOK_EVENT_TYPES } from '../../src/modules/webhook-endpoints/webhook-endpoints.schemas';

// The catalogue (docs/architecture/events.md) is derived from the modules' declarations; these
// cases keep the declarations true to the code, found by scanning it, so tomorrow's emit is caught.

const sites = emitSites();
const declared = (name: string) => new Set<string>(appModules.find((m) => m.name === name)?.publishes ?? []);

describe('the event catalogue', () => {
  test('when the source is scanned, then it finds the emit call sites (the scanner works)', () => {
    expect(sites.length).toBeGreaterThan(15);
    expect(sites).toContainEqual(expect.objectContaining({ file: 'src/modules/donations/donations.settle.ts', type: 'donation.paid' }));
  });

  test('when an emit call is found, then it names its event as a literal, inside a module folder', () => {
    const strays = sites.filter((s) => s.type === null || moduleOf(s.file) === null).map((s) => `${s.file}:${s.line}`);
    expect(strays).toEqual([]);
  });

  test("when an emit call is found, then its module declares the event in its module file's `publishes`", () => {
    const undeclared = sites.filter((s) => s.type && !declared(moduleOf(s.file)!).has(s.type)).map((s) => `${s.file}:${s.line} emits ${s.type}`);
    expect(undeclared).toEqual([]);
  });

  test('when a module declares that it publishes an event, then some emit call in its folder emits it', () => {
    const unused = appModules.flatMap((m) =>
      (m.publishes ?? []).filter((t) => !sites.some((s) => s.type === t && moduleOf(s.file) === m.name)).map((t) => `${m.name}: ${t}`),
    );
    expect(unused).toEqual([]);
  });

  test('when the events are read from src/events/types.ts, then each has a description and a publisher, and every subscriber listens to one of them', () => {
    const events = declaredEvents();
    expect(events.length).toBeGreaterThan(10);
    expect(events.filter((e) => e.description === '').map((e) => e.type)).toEqual([]);
    const published = new Set(appModules.flatMap((m) => m.publishes ?? []));
    expect(events.filter((e) => !published.has(e.type as never)).map((e) => e.type)).toEqual([]);
    const known = new Set(events.map((e) => e.type));
    expect(appModules.flatMap((m) => (m.subscribers ?? []).filter((s) => !known.has(s.type)).map((s) => s.name))).toEqual([]);
  });

  test('when endpoints may ask for an event type, then exactly those types have an outbound fan-out subscriber', () => {
    const fannedOut = appModules.find((m) => m.name === 'webhook-endpoints')!.subscribers!.map((s) => s.type as string);
    expect([...fannedOut].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  });

  test('when the page is generated again, then it equals the committed docs/architecture/events.md (run `npm run docs:events`)', () => {
    expect(fs.readFileSync(path.join(ROOT, PAGE), 'utf8')).toBe(renderEventCatalogue());
  });

  test('when a module publishes a new event, then the generated page changes (staleness is detectable)', () => {
    const changed = appModules.map((m) => (m.name === 'tips' ? { ...m, publishes: [...(m.publishes ?? []), 'user.blocked' as const] } : m));
    expect(renderEventCatalogue(changed)).not.toBe(renderEventCatalogue());
  });
});
