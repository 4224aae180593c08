/**
 * Writes the event catalogue, docs/architecture/events.md, from the module registry
 * (scripts/event-catalogue.ts says from what). `npm run docs:events`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PAGE, ROOT, renderEventCatalogue } from './event-catalogue';

fs.writeFileSync(path.join(ROOT, PAGE), renderEventCatalogue());
console.log(`wrote ${PAGE}`);
process.exit(0);
