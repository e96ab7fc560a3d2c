import { describe, expect, it } from 'vitest';
import { mergedMetrics, ServiceMetrics } from './metrics.js';

describe('mergedMetrics', () => {
  it('merges services that register the same metric names, keeping each service’s series', async () => {
    const a = new ServiceMetrics('users');
    const b = new ServiceMetrics('queries');
    a.record('agent_register', 200, 0.01);
    b.record('cqAskQuestion', 200, 0.02);
    b.droppedEnvelopes.inc({ service: 'queries', reason: 'unsolicited' });
    const { body } = await mergedMetrics([a.registry, b.registry]);
    expect(body).toMatch(/lore_tool_calls_total\{service="users",tool="agent_register",code="200"\} 1/);
    expect(body).toMatch(/lore_tool_calls_total\{service="queries",tool="cqAskQuestion",code="200"\} 1/);
    expect(body).toMatch(/lore_envelopes_dropped_total\{service="queries",reason="unsolicited"\} 1/);
    expect(body.match(/# TYPE lore_tool_calls_total counter/g)).toHaveLength(1);
  });
});
