// Lints an OpenAPI document (JSON on stdin) with Redocly's `recommended` ruleset and prints the
// problems as JSON. A separate process because @redocly/openapi-core ships only ES modules,
// which jest's CommonJS runtime cannot load. Rule overrides arrive as JSON in argv[2].
import process from 'node:process';
import { createConfig, lintFromString } from '@redocly/openapi-core';

let source = '';
for await (const chunk of process.stdin) source += chunk;
const rules = JSON.parse(process.argv[2] ?? '{}');
const config = await createConfig({ extends: ['recommended'], rules });
const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
process.stdout.write(
  JSON.stringify(
    problems.map((p) => ({
      rule: p.ruleId,
      severity: p.severity,
      message: p.message,
      where: p.location?.[0]?.pointer,
    })),
  ),
);
