import { randomBytes } from 'node:crypto';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * W3C trace context for a forwarded call: the caller's trace continues with a new span id
 * for the hop; a call without one starts a trace.
 */
export function childTraceparent(incoming: string | undefined): string {
  const m = incoming ? TRACEPARENT.exec(incoming) : null;
  const traceId = m?.[1] && !/^0+$/.test(m[1]) ? m[1] : randomBytes(16).toString('hex');
  const flags = m?.[3] ?? '01';
  return `00-${traceId}-${randomBytes(8).toString('hex')}-${flags}`;
}
