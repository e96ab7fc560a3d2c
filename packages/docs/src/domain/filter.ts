import { invalid } from '@lore/kit';
import { type SQL, sql } from 'drizzle-orm';

/**
 * `search_documents` filters: a subset of AIP-160 over the documents' metadata.
 *
 *   filter      := expression
 *   expression  := sequence { "AND" sequence }
 *   sequence    := factor { factor }            (juxtaposition is AND)
 *   factor      := term { "OR" term }           (OR binds tighter than AND, as in AIP-160)
 *   term        := [ "NOT" | "-" ] simple
 *   simple      := restriction | "(" expression ")"
 *   restriction := field comparator value
 *
 * Fields: `data_source` and `uri` (strings: `=`, `!=`; a value ending in `*` matches a prefix)
 * and `update_time` (RFC 3339 timestamp or date: `=`, `!=`, `<`, `<=`, `>`, `>=`). Values
 * are double- or single-quoted strings, or bare words.
 */
export type FilterNode =
  | { kind: 'and' | 'or'; items: FilterNode[] }
  | { kind: 'not'; item: FilterNode }
  | { kind: 'cmp'; field: Field; op: Op; value: string | number };

type Field = 'data_source' | 'uri' | 'update_time';
type Op = '=' | '!=' | '<' | '<=' | '>' | '>=';

const FIELDS: Record<string, Field> = {
  data_source: 'data_source',
  datasource: 'data_source',
  uri: 'uri',
  update_time: 'update_time',
  updatetime: 'update_time',
};

export const MAX_FILTER_LENGTH = 500;

type Token =
  | { t: 'word'; v: string; at: number }
  | { t: 'string'; v: string; at: number }
  | { t: 'op'; v: Op; at: number }
  | { t: '(' | ')' | '-'; at: number }
  | { t: 'end'; at: number };

const fail = (message: string) => invalid('filter', 'syntax', `Invalid filter: ${message}`);

export function tokenizeFilter(input: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i + 1;
    if (c === '(' || c === ')') {
      out.push({ t: c, at });
      i++;
    } else if (c === '"' || c === "'") {
      let v = '';
      let j = i + 1;
      for (; j < input.length && input[j] !== c; j++) {
        if (input[j] === '\\' && j + 1 < input.length) j++;
        v += input[j];
      }
      if (j >= input.length) throw fail(`unterminated string starting at character ${at}`);
      out.push({ t: 'string', v, at });
      i = j + 1;
    } else if (c === '!' || c === '=' || c === '<' || c === '>') {
      const two = input.slice(i, i + 2);
      if (two === '!=' || two === '<=' || two === '>=') {
        out.push({ t: 'op', v: two, at });
        i += 2;
      } else if (c === '!') {
        throw fail(`unexpected "!" at character ${at} (did you mean "!="?)`);
      } else {
        out.push({ t: 'op', v: c as Op, at });
        i++;
      }
    } else if (c === '-' && (out.length === 0 || !['op'].includes(out[out.length - 1]!.t))) {
      // A leading minus is NOT; inside a bare value (2025-01-01) it is part of the word.
      out.push({ t: '-', at });
      i++;
    } else if (c === ':' || c === '~') {
      throw fail(`operator "${c}" is not supported at character ${at} (use =, !=, <, <=, >, >=)`);
    } else {
      let j = i;
      while (j < input.length && !/[\s()"'=!<>]/.test(input[j]!)) j++;
      out.push({ t: 'word', v: input.slice(i, j), at });
      i = j;
    }
  }
  out.push({ t: 'end', at: input.length + 1 });
  return out;
}

/** Parses a filter; throws a 400 naming `filter` with where and what went wrong. */
export function parseFilter(input: string): FilterNode {
  if (input.length > MAX_FILTER_LENGTH) throw invalid('filter', `at most ${MAX_FILTER_LENGTH} characters`);
  const tokens = tokenizeFilter(input);
  let pos = 0;
  const peek = () => tokens[pos]!;
  const isKeyword = (tok: Token, kw: string) => tok.t === 'word' && tok.v === kw;
  const describe = (tok: Token) =>
    tok.t === 'end' ? 'the end of the filter' : `"${'v' in tok ? tok.v : tok.t}" at character ${tok.at}`;

  function expression(): FilterNode {
    const items = [sequence()];
    while (isKeyword(peek(), 'AND')) {
      pos++;
      items.push(sequence());
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }
  function sequence(): FilterNode {
    const items = [factor()];
    for (;;) {
      const tok = peek();
      if (tok.t === 'end' || tok.t === ')' || isKeyword(tok, 'AND') || isKeyword(tok, 'OR')) break;
      items.push(factor());
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }
  function factor(): FilterNode {
    const items = [term()];
    while (isKeyword(peek(), 'OR')) {
      pos++;
      items.push(term());
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }
  function term(): FilterNode {
    const tok = peek();
    if (tok.t === '-' || isKeyword(tok, 'NOT')) {
      pos++;
      return { kind: 'not', item: simple() };
    }
    return simple();
  }
  function simple(): FilterNode {
    const tok = peek();
    if (tok.t === '(') {
      pos++;
      const inner = expression();
      const close = peek();
      if (close.t !== ')')
        throw fail(`expected ")" to close the "(" at character ${tok.at}, found ${describe(close)}`);
      pos++;
      return inner;
    }
    if (tok.t !== 'word' || ['AND', 'OR', 'NOT'].includes(tok.v)) {
      throw fail(`expected a field (data_source, uri or update_time), found ${describe(tok)}`);
    }
    const field = FIELDS[tok.v.toLowerCase()];
    if (!field)
      throw fail(
        `unknown field "${tok.v}" at character ${tok.at}; filter on data_source, uri or update_time`,
      );
    pos++;
    const opTok = peek();
    if (opTok.t !== 'op')
      throw fail(`expected a comparison (=, !=, <, <=, >, >=) after ${tok.v}, found ${describe(opTok)}`);
    pos++;
    const valTok = peek();
    if (valTok.t !== 'word' && valTok.t !== 'string')
      throw fail(`expected a value after "${opTok.v}", found ${describe(valTok)}`);
    pos++;
    return restriction(field, opTok.v, valTok.v, valTok.at);
  }

  const node = expression();
  const rest = peek();
  if (rest.t !== 'end') throw fail(`unexpected ${describe(rest)}`);
  return node;
}

function restriction(field: Field, op: Op, raw: string, at: number): FilterNode {
  if (field === 'update_time') {
    const ms = parseTimestamp(raw);
    if (ms === null)
      throw fail(
        `update_time needs an RFC 3339 timestamp like "2025-01-01T00:00:00Z", got "${raw}" at character ${at}`,
      );
    return { kind: 'cmp', field, op, value: ms };
  }
  if (op !== '=' && op !== '!=') throw fail(`${field} supports only = and != (at character ${at})`);
  return { kind: 'cmp', field, op, value: raw };
}

function parseTimestamp(raw: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i.test(raw))
    return null;
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : null;
}

const COLUMN: Record<Field, SQL> = {
  data_source: sql.raw('d.data_source'),
  uri: sql.raw('d.uri'),
  update_time: sql.raw('d.update_time'),
};

/** The filter as an SQL condition over the documents table aliased `d`. */
export function filterSql(node: FilterNode): SQL {
  switch (node.kind) {
    case 'and':
    case 'or':
      return sql`(${sql.join(node.items.map(filterSql), sql.raw(node.kind === 'and' ? ' and ' : ' or '))})`;
    case 'not':
      return sql`(not ${filterSql(node.item)})`;
    case 'cmp': {
      const col = COLUMN[node.field];
      const { op, value } = node;
      if (typeof value === 'string' && value.endsWith('*')) {
        const prefix = value.slice(0, -1).replace(/[\\%_]/g, (c) => `\\${c}`);
        const like = sql`${col} like ${`${prefix}%`} escape '\\'`;
        return op === '=' ? sql`(${like})` : sql`(not ${like})`;
      }
      return sql`(${col} ${sql.raw(op)} ${value})`;
    }
  }
}

/** Parse and compile; null for an absent or blank filter. */
export function compileFilter(input: string | undefined): SQL | null {
  if (input === undefined || input.trim() === '') return null;
  return filterSql(parseFilter(input));
}
