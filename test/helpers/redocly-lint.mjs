// Lints an OpenAPI document (JSON on stdin) with Redocly's `recommended` ruleset and prints the
// problems as JSON. A separate process because @redocly/openapi-core ships only ES modules,
// which jest's CommonJS runtime cannot load. Rule overrides arrive as JSON in argv[2]; argv[3]
// optionally names single problems to accept, `{ ruleId: [JSON pointer, ...] }`: Redocly's own
// ignore mechanism (what `redocly lint --generate-ignore-file` writes), reported with `ignored: true`.
import process from 'node:process';
import { createConfig, lintFromString } from '@redocly/openapi-core';

const ABSOLUTE_REF = 'openapi.json';

let source = '';
for await (const chunk of process.stdin) source += chunk;
const rules = JSON.parse(process.argv[2] ?? '{}');
const accepted = JSON.parse(process.argv[3] ?? '{}');
const config = await createConfig({ extends: ['recommended'], rules });
config.ignore = { [ABSOLUTE_REF]: Object.fromEntries(Object.entries(accepted).map(([rule, pointers]) => [rule, new Set(pointers)])) };
const problems = await lintFromString({ source, absoluteRef: ABSOLUTE_REF, config });
process.stdout.write(
  JSON.stringify(
    problems.map((p) => ({
      rule: p.ruleId,
      severity: p.severity,
      message: p.message,
      where: p.location?.[0]?.pointer,
      ignored: p.ignored === true,
    })),
  ),
);
