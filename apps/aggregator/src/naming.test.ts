import { describe, expect, it } from 'vitest';
import { assignNames, sanitizeToolName, TOOL_NAME } from './naming.js';

describe('tool names', () => {
  it('keeps valid names as they are and repairs invalid ones deterministically', () => {
    expect(sanitizeToolName('cqAskQuestion')).toBe('cqAskQuestion');
    expect(sanitizeToolName('files.read/all')).toBe('files_read_all');
    const long = `tool_${'x'.repeat(100)}`;
    const a = sanitizeToolName(long);
    expect(a).toMatch(TOOL_NAME);
    expect(a).toHaveLength(64);
    expect(sanitizeToolName(long)).toBe(a);
    expect(sanitizeToolName(`${long}y`)).not.toBe(a);
    expect(sanitizeToolName('')).toMatch(TOOL_NAME);
    expect(sanitizeToolName('ünïcödé tool')).toMatch(TOOL_NAME);
  });

  it('never fails on a collision: the later upstream’s tool takes its prefix, and the map is reversible', () => {
    const collisions: string[] = [];
    const names = assignNames(
      [
        { name: 'users', tools: ['agent_register', 'search'] },
        { name: 'github', tools: ['search', 'get issue'] },
        { name: 'gitlab', tools: ['search'] },
        { name: 'jira', prefix: 'jr', tools: ['search'] },
      ],
      (tool, upstream, exposed) => collisions.push(`${upstream}:${tool}->${exposed}`),
    );
    expect(names.map((n) => n.exposed)).toEqual([
      'agent_register',
      'search',
      'github_search',
      'get_issue',
      'gitlab_search',
      'jr_search',
    ]);
    expect(collisions).toEqual(['github:search->github_search', 'gitlab:search->gitlab_search']);
    const back = new Map(names.map((n) => [n.exposed, `${n.upstream}/${n.original}`]));
    expect(back.get('get_issue')).toBe('github/get issue');
    expect(new Set(names.map((n) => n.exposed)).size).toBe(names.length);
    for (const n of names) expect(n.exposed).toMatch(TOOL_NAME);
  });

  it('finds a free name even when the prefixed one is taken too', () => {
    const names = assignNames([
      { name: 'a', tools: ['b_x', 'x'] },
      { name: 'b', tools: ['x'] },
    ]);
    expect(names.map((n) => n.exposed)).toEqual(['b_x', 'x', 'b_x_2']);
  });
});
