import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  context,
  INVALID_SPAN_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapPropagator,
  trace,
} from '@opentelemetry/api';

/** The call a piece of work belongs to: what events and outgoing requests carry along. */
export interface CallContext {
  requestId: string;
  traceparent?: string;
}

export const callContext = new AsyncLocalStorage<CallContext>();

/**
 * The W3C propagator, set by `startTelemetry`: only exported spans need it (and the SDK that
 * exports them loads @opentelemetry/core anyway), so a process without an exporter never loads it.
 */
let w3c: TextMapPropagator | undefined;
const getter = {
  get: (c: Record<string, string>, k: string) => c[k],
  keys: (c: Record<string, string>) => Object.keys(c),
};
const setter = {
  set(c: Record<string, string>, k: string, v: string) {
    c[k] = v;
  },
};

/** The span handed to work when nothing records spans: every call on it is a no-op. */
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * Ids for spans nobody exports: unique without asking the system for entropy on every call (a
 * random prefix drawn once per process, then a counter). Exported spans get the SDK's own ids.
 */
const PROCESS_ID = randomBytes(12).toString('hex');
let sequence = 0;
function cheapId(hexLength: 16 | 32): string {
  sequence = (sequence + 1) % 0x1_0000_0000;
  const counter = sequence.toString(16).padStart(8, '0');
  return `${PROCESS_ID.slice(0, hexLength - 8)}${counter}`;
}

/** A traceparent for this hop: the caller's trace with a new span id, or a new trace. */
export function nextTraceparent(incoming?: string): string {
  const m = incoming ? TRACEPARENT.exec(incoming) : null;
  const traceId = m?.[1] && !/^0+$/.test(m[1]) ? m[1] : cheapId(32);
  return `00-${traceId}-${cheapId(16)}-${m?.[3] ?? '01'}`;
}

/** Whether spans are exported (an OpenTelemetry SDK registered by `startTelemetry`). */
let exporting = false;

/** Whether spans are exported: a hop that only adds a span may skip itself when they are not. */
export function spansExported(): boolean {
  return exporting;
}

/**
 * Run `fn` as a span named `name`, child of the incoming W3C trace context. With an
 * OpenTelemetry SDK registered (see `startTelemetry`) the span is exported; without one the
 * trace id still flows: into events on the bus and into calls to other services.
 */
export async function withSpan<T>(
  name: string,
  attrs: Record<string, string>,
  incoming: CallContext,
  fn: (ctx: CallContext, span: Span) => Promise<T>,
): Promise<T> {
  const propagator = exporting ? w3c : undefined;
  if (!propagator) {
    // Nobody records spans: no span objects, no OpenTelemetry context, only the trace id passed on.
    const ctx: CallContext = {
      requestId: incoming.requestId,
      traceparent: nextTraceparent(incoming.traceparent),
    };
    return callContext.run(ctx, () => fn(ctx, NO_SPAN));
  }
  const parent = incoming.traceparent
    ? propagator.extract(context.active(), { traceparent: incoming.traceparent }, getter)
    : context.active();
  const tracer = trace.getTracer('lore');
  return tracer.startActiveSpan(name, { kind: SpanKind.SERVER, attributes: attrs }, parent, async (span) => {
    const carrier: Record<string, string> = {};
    if (span.spanContext().traceFlags !== 0 || trace.getSpan(context.active())?.isRecording()) {
      propagator.inject(context.active(), carrier, setter);
    }
    const ctx: CallContext = {
      requestId: incoming.requestId,
      traceparent: carrier.traceparent ?? nextTraceparent(incoming.traceparent),
    };
    try {
      return await callContext.run(ctx, () => fn(ctx, span));
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * Export spans over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Returns a shutdown
 * function, or nothing when telemetry is off.
 */
export async function startTelemetry(
  endpoint: string | undefined,
  serviceName: string,
): Promise<(() => Promise<void>) | undefined> {
  if (!endpoint) return undefined;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { W3CTraceContextPropagator }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/core'),
    ]);
  const propagator = new W3CTraceContextPropagator();
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` })),
    ],
  });
  provider.register({ propagator });
  w3c = propagator;
  exporting = true;
  return async () => {
    exporting = false;
    await provider.shutdown();
  };
}
