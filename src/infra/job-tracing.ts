import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * A job continues the trace of the request that queued it: `current()` is the active W3C
 * traceparent (stored in the job's payload), `run()` wraps the handler in a consumer span whose
 * parent is that traceparent. Without the SDK (OTEL_EXPORTER_OTLP_ENDPOINT unset) the API's
 * no-op propagator and tracer make both nearly free: current() answers undefined.
 */
export const jobTracing = {
  current(): string | undefined {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    return carrier.traceparent;
  },

  run<T>(task: string, traceparent: string | undefined, fn: () => Promise<T>): Promise<T> {
    const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
    return trace.getTracer('jobs').startActiveSpan(`job ${task}`, { kind: SpanKind.CONSUMER, attributes: { 'job.task': task } }, parent, async (span) => {
      try {
        return await fn();
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
        throw err;
      } finally {
        span.end();
      }
    });
  },
};
