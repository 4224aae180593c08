/**
 * OpenTelemetry, loaded first by server.ts and worker.ts (before express, pg or ioredis are
 * required, so their instrumentations can patch them). Only with OTEL_EXPORTER_OTLP_ENDPOINT
 * set: spans (HTTP in and out, Express routes, pg, ioredis, jobs) go out over OTLP/HTTP (JSON) to
 * `<endpoint>/v1/traces`, and an incoming `traceparent` continues its trace. Unset, nothing is
 * loaded and the API's no-op tracer is all the code meets.
 */
let stop: () => Promise<void> = async () => undefined;

if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? 'crowdfunding-api',
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url === '/metrics' || req.url === '/healthz' || req.url === '/readyz' }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
  stop = () => sdk.shutdown();
}

/** Flushes spans still buffered; the process's graceful stop calls it last. */
export function shutdownTracing(): Promise<void> {
  return stop();
}
