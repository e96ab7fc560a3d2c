import { describe, expect, it } from 'vitest';
import { nodeLocalBus, nodeSubject } from './local.js';
import { MemoryBus } from './memory.js';
import { BusNoResponderError } from './types.js';

describe('nodeLocalBus', () => {
  it('answers on the subject and on the node subject, asks its own node first, and can aim at a node', async () => {
    const shared = new MemoryBus();
    const a = nodeLocalBus(shared, 'node-a');
    const b = nodeLocalBus(shared, 'node-b');
    await a.reply('rpc.test.where', async () => 'a');
    await b.reply('rpc.test.where', async () => 'b');
    for (let i = 0; i < 10; i++) {
      expect(await a.request('rpc.test.where', {})).toBe('a');
      expect(await b.request('rpc.test.where', {})).toBe('b');
    }
    expect(await a.request('rpc.test.where', {}, { node: 'node-b' })).toBe('b');
    expect(await shared.request(nodeSubject('rpc.test.where', 'node-a'), {})).toBe('a');
    await expect(a.request('rpc.test.where', {}, { node: 'node-c' })).rejects.toBeInstanceOf(
      BusNoResponderError,
    );
    await shared.close();
  });

  it('falls back to any replica when its node has none (services run apart)', async () => {
    const shared = new MemoryBus();
    await shared.reply('rpc.test.plain', async () => 'plain');
    expect(await nodeLocalBus(shared, 'node-x').request('rpc.test.plain', {})).toBe('plain');
    await expect(nodeLocalBus(shared, 'node-x').request('rpc.test.none', {})).rejects.toBeInstanceOf(
      BusNoResponderError,
    );
    await shared.close();
  });
});
