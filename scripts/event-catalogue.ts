/**
 * The event catalogue (docs/architecture/events.md), derived, never listed by hand: the events and
 * their descriptions from src/events/types.ts, who publishes each from the modules' `publishes`
 * (checked against every `emit(` call site found in the source), who subscribes from the modules'
 * `subscribers`, the outbound webhook types from the webhook-endpoints module's subscribers, and
 * which processor events settle what from the modules' `webhookHandlers` and the Stripe adapter.
 * `npm run docs:events` writes the page; test/unit/event-catalogue.test.ts fails when it is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { EventType } from '../src/events';
import { toPaymentEvent } from '../src/integrations/payments/stripe-events';
import { appModules } from '../src/modules';
import type { AppModule } from '../src/modules/define-module';

export const ROOT = path.resolve(__dirname, '..');
export const PAGE = 'docs/architecture/events.md';
const TYPES_FILE = 'src/events/types.ts';
const STRIPE_EVENTS_FILE = 'src/integrations/payments/stripe-events.ts';
/** The module whose subscribers turn events into deliveries to integrators' endpoints. */
const OUTBOUND_MODULE = 'webhook-endpoints';

const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const parse = (rel: string) => ts.createSourceFile(rel, read(rel), ts.ScriptTarget.ES2022, true);

function walkTs(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) walkTs(rel, out);
    else if (rel.endsWith('.ts')) out.push(rel);
  }
  return out.sort();
}

/** Every event of EventMap with the first paragraph of its doc comment, in declaration order. */
export function declaredEvents(): Array<{ type: string; description: string }> {
  const src = parse(TYPES_FILE);
  const map = src.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'EventMap');
  if (!map) throw new Error(`${TYPES_FILE} declares no EventMap`);
  return map.members.filter(ts.isPropertySignature).map((m) => {
    const doc = ts.getJSDocCommentsAndTags(m).find(ts.isJSDoc);
    const text = typeof doc?.comment === 'string' ? doc.comment : (doc?.comment?.map((c) => c.text).join('') ?? '');
    return { type: (m.name as ts.StringLiteral).text, description: text.split(/\n\s*\n/)[0]!.replace(/\s+/g, ' ').trim() };
  });
}

/** One `emit(trx, type, ...)` call in the source: `type` is null when it is not a string literal. */
export interface EmitSite {
  file: string;
  line: number;
  type: string | null;
}

/** Every call of `emit(...)` under src/ (comments and strings are not calls), whatever its module. */
export function emitSites(): EmitSite[] {
  const sites: EmitSite[] = [];
  for (const file of walkTs('src')) {
    const src = parse(file);
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'emit') {
        const arg = node.arguments[1];
        const type = arg && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg)) ? arg.text : null;
        sites.push({ file, line: src.getLineAndCharacterOfPosition(node.getStart()).line + 1, type });
      }
      ts.forEachChild(node, visit);
    };
    visit(src);
  }
  return sites;
}

/** The module folder a source file sits in, or null outside src/modules/<name>/. */
export const moduleOf = (file: string): string | null => /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? null;

/** Each processor event kind and the processor's types the adapter translates into it. */
export function processorTypesByKind(): Map<string, string[]> {
  const types = [...read(STRIPE_EVENTS_FILE).matchAll(/^\s*case '([a-z_.]+)':/gm)].map((m) => m[1]!);
  // A minimal object of each type: enough for the adapter to say which typed event it becomes.
  const object = { id: 'obj_1', amount: 100, amount_received: 100, amount_refunded: 0, amount_total: 100, amount_paid: 100, currency: 'usd' };
  const out = new Map<string, string[]>();
  for (const type of types) {
    const { kind } = toPaymentEvent({ id: 'evt_1', type, created: 0, data: { object } });
    out.set(kind, [...(out.get(kind) ?? []), type]);
  }
  return out;
}

const code = (s: string) => `\`${s}\``;
const list = (xs: readonly string[]) => (xs.length ? xs.join(', ') : 'none');
/** What a payment kind's rows are, as the page says it. */
const REF_ROWS: Record<string, string> = { donation: 'a gift or a monthly gift', tip: 'a platform tip', community_join: 'a paid community membership' };

/** The page, as `npm run docs:events` writes it. */
export function renderEventCatalogue(mods: readonly AppModule[] = appModules): string {
  const events = declaredEvents();
  const sites = emitSites();
  const publishers = (type: string) => mods.filter((m) => (m.publishes ?? []).includes(type as EventType)).map((m) => m.name);
  const subscribersOf = (type: string) =>
    mods.flatMap((m) => (m.subscribers ?? []).filter((s) => s.type === type).map((s) => ({ module: m.name, name: s.name })));
  const outbound = new Set(mods.find((m) => m.name === OUTBOUND_MODULE)?.subscribers?.map((s) => s.type as string) ?? []);

  const out: string[] = [
    '# Events',
    '',
    '<!-- Generated by `npm run docs:events` (scripts/docs-events.ts); test/unit/event-catalogue.test.ts fails when it is stale. Do not edit. -->',
    '',
    'A change that others react to emits an event in its own transaction (`emit(trx, type, payload)`,',
    '[decision 0003](../decisions/0003-outbox-events.md)); each subscriber then runs once per event as',
    'a job ([how a job travels](flows.md#a-job)). Everything here is derived: the events from',
    '`src/events/types.ts`, publishers from each module file\'s `publishes` (every `emit(` call site',
    'must be declared there), subscribers from its `subscribers`, outbound webhook types from the',
    '`webhook-endpoints` module\'s subscribers, and processor events from each module\'s',
    '`webhookHandlers` ([adding to a module](extending.md)).',
    '',
    '## At a glance',
    '',
    '| event | published by | subscribers | outbound webhook type |',
    '|---|---|---|---|',
  ];
  for (const e of events) {
    const subs = subscribersOf(e.type);
    const mods_ = [...new Set(subs.map((s) => s.module))];
    const subText = subs.length ? `${subs.length} in ${mods_.length} module${mods_.length === 1 ? '' : 's'}` : 'none';
    out.push(`| [${code(e.type)}](#${e.type.replace(/\./g, '')}) | ${list(publishers(e.type).map(code))} | ${subText} | ${outbound.has(e.type) ? code(e.type) : '-'} |`);
  }
  out.push('');
  for (const e of events) {
    out.push(`## ${e.type}`, '', e.description, '');
    const at = sites.filter((s) => s.type === e.type).map((s) => s.file);
    out.push(`- **Published by:** ${list(publishers(e.type).map(code))}, in ${list([...new Set(at)].map(code))}.`);
    const subs = subscribersOf(e.type);
    if (subs.length === 0) out.push('- **Subscribers:** none.');
    else {
      out.push('- **Subscribers** (each its own job queue, `event:<name>`):');
      for (const s of subs) out.push(`  - ${code(s.module)}: ${code(s.name)}`);
    }
    out.push(
      outbound.has(e.type)
        ? `- **Outbound webhook:** ${code(e.type)}, delivered to the endpoints of the campaign's or the payout's holder that ask for it ([outbound webhooks](../integrators/webhooks.md)).`
        : '- **Outbound webhook:** none (integrators are not sent it).',
      '',
    );
  }

  const kinds = processorTypesByKind();
  out.push(
    '## Processor events',
    '',
    'The payment adapter turns each processor event into a typed event',
    '(`src/integrations/payments/events.ts`); the module owning the kind of row its metadata names',
    '(`ref.kind`) handles it, in the transaction that records the event id',
    '([decision 0002](../decisions/0002-exactly-once-processor-events.md)). An event without a',
    'ref goes to each module handling its kind until one applies it. Processor types not listed are',
    'recorded as ignored.',
    '',
    '| typed event | processor types | handled by (what it settles) |',
    '|---|---|---|',
  );
  for (const [kind, types] of kinds) {
    if (kind === 'Unhandled') continue;
    const by = mods.flatMap((m) => {
      if (!m.webhookHandlers || !(kind in m.webhookHandlers.handlers)) return [];
      const { ref } = m.webhookHandlers;
      return [`${code(m.name)} (${ref ? `${code(ref)}: ${REF_ROWS[ref] ?? ref}` : 'no ref: connected accounts and payouts'})`];
    });
    out.push(`| ${code(kind)} | ${types.map(code).join(', ')} | ${list(by)} |`);
  }
  out.push('');
  return out.join('\n');
}
