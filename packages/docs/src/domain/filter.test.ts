import { ToolError } from '@lore/kit';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { compileFilter, parseFilter } from './filter.js';

const dialect = new SQLiteSyncDialect();
const render = (filter: string) => {
  const q = dialect.sqlToQuery(compileFilter(filter)!);
  return { sql: q.sql, params: q.params };
};
const filterError = (filter: string) => {
  try {
    parseFilter(filter);
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    const e = err as ToolError;
    expect(e.code).toBe(400);
    expect(e.data?.field).toBe('filter');
    return e.message;
  }
  throw new Error(`no error for ${filter}`);
};

describe('filters', () => {
  it('compiles comparisons, AND, OR (binding tighter, as in AIP-160), NOT and parentheses', () => {
    expect(render('data_source = "hono.dev"')).toEqual({ sql: '(d.data_source = ?)', params: ['hono.dev'] });
    expect(render("uri != 'https://x/a'").sql).toBe('(d.uri != ?)');
    expect(render('update_time > "2025-01-01T00:00:00Z"').params).toEqual([
      Date.parse('2025-01-01T00:00:00Z'),
    ]);
    expect(render('update_time <= 2025-01-01').params).toEqual([Date.parse('2025-01-01T00:00:00Z')]);
    expect(render('data_source = a AND data_source = b OR data_source = c').sql).toBe(
      '((d.data_source = ?) and ((d.data_source = ?) or (d.data_source = ?)))',
    );
    expect(render('(data_source = a AND uri = b) OR NOT data_source = c').sql).toBe(
      '(((d.data_source = ?) and (d.uri = ?)) or (not (d.data_source = ?)))',
    );
    expect(render('-data_source = a data_source = b').sql).toBe(
      '((not (d.data_source = ?)) and (d.data_source = ?))',
    );
    expect(render('uri = "https://hono.dev/docs/api/*"')).toEqual({
      sql: "(d.uri like ? escape '\\')",
      params: ['https://hono.dev/docs/api/%'],
    });
    expect(compileFilter('  ')).toBeNull();
  });

  it('reports what is wrong, naming filter', () => {
    expect(filterError('title = "x"')).toMatch(/unknown field "title"/);
    expect(filterError('data_source')).toMatch(/expected a comparison/);
    expect(filterError('data_source =')).toMatch(/expected a value after "="/);
    expect(filterError('data_source > "a"')).toMatch(/supports only = and !=/);
    expect(filterError('update_time > "yesterday"')).toMatch(/RFC 3339/);
    expect(filterError('(data_source = a')).toMatch(/expected "\)"/);
    expect(filterError('data_source = "a')).toMatch(/unterminated string/);
    expect(filterError('data_source = a )')).toMatch(/unexpected "\)"/);
    expect(filterError('data_source : a')).toMatch(/not supported/);
    expect(filterError('x'.repeat(501))).toMatch(/at most 500/);
  });
});
