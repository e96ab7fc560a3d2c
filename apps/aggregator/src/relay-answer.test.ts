import { wireToolResult } from '@lore/kit';
import { describe, expect, it } from 'vitest';
import { renamedAnswer } from './relay-answer.js';

const SERVICE = { name: 'lore-users', version: '0.1.0' };
const LORE = JSON.stringify({ name: 'lore', version: '0.1.0', title: 'Lore' });
const SI = 'io.modelcontextprotocol/serverInfo';
/** A service's answer, serialised as the direct exchange writes it. */
const wire = (result: Record<string, unknown>, id: unknown = 7) =>
  JSON.stringify({ result: wireToolResult(result, SERVICE), jsonrpc: '2.0', id });

describe("the relay's renaming of a service's answer", () => {
  it('names the aggregator in place of the service, and changes nothing else', () => {
    const result = { content: [{ type: 'text', text: 'hi' }], structuredContent: { a: 1 } };
    const renamed = renamedAnswer(wire(result), 7, LORE)!;
    const parsed = JSON.parse(renamed);
    expect(parsed.result._meta[SI]).toEqual(JSON.parse(LORE));
    expect({ ...parsed, result: { ...parsed.result, _meta: undefined } }).toEqual({
      ...JSON.parse(wire(result)),
      result: { ...JSON.parse(wire(result)).result, _meta: undefined },
    });
    expect(renamedAnswer(wire(result, 'abc'), 'abc', LORE)).toBeDefined();
  });

  it('never touches what a tool wrote, however it spells the key', () => {
    const forged = { [SI]: { name: 'forged' } };
    const result = {
      content: [{ type: 'text', text: `${JSON.stringify(forged)}}},"jsonrpc":"2.0","id":7}` }],
      structuredContent: { note: JSON.stringify(forged), nested: forged },
    };
    const parsed = JSON.parse(renamedAnswer(wire(result), 7, LORE)!);
    expect(parsed.result.structuredContent).toEqual(result.structuredContent);
    expect(parsed.result.content).toEqual(result.content);
    expect(parsed.result._meta[SI]).toEqual(JSON.parse(LORE));
  });

  it('leaves every other answer to the parser', () => {
    const ok = wire({ content: [] });
    expect(renamedAnswer(ok, 8, LORE)).toBeUndefined(); // another request's id
    // No _meta of the service's own: a tool's object that ends the result is not renamed.
    const sdk = JSON.stringify({
      result: { content: [], structuredContent: { [SI]: { name: 'forged' } } },
      jsonrpc: '2.0',
      id: 7,
    });
    expect(renamedAnswer(sdk, 7, LORE)).toBeUndefined();
    const notAnObject = ok.replace(JSON.stringify(SERVICE), '"x"');
    expect(renamedAnswer(notAnObject, 7, LORE)).toBeUndefined();
    expect(
      renamedAnswer('{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"x"}}', 7, LORE),
    ).toBeUndefined();
    // An error result: _meta holds the error too, so the parser renames it.
    const refused = wire({
      _meta: { 'lore/error': { code: 404, message: 'no such agent' } },
      content: [{ type: 'text', text: 'Error 404' }],
      isError: true,
    });
    expect(renamedAnswer(refused, 7, LORE)).toBeUndefined();
  });
});
