import { createLogger, type McpBackend } from '@lore/kit';
import { describe, expect, it } from 'vitest';
import { Aggregator } from './aggregator.js';
import { namespacedUri } from './ui-resources.js';
import { Upstream } from './upstream.js';

const APP = 'text/html;profile=mcp-app';

/** An in-process upstream that serves one app, opened by one tool. */
function appBackend(label: string): McpBackend {
  return {
    info: { name: label, version: '1.0.0' },
    listTools: () => [
      {
        name: `${label}_list`,
        inputSchema: { type: 'object' },
        _meta: { ui: { resourceUri: 'ui://lore/inbox', visibility: ['model', 'app'] } },
      },
    ],
    callTool: async () => ({ content: [] }),
    listResources: () => [{ uri: 'ui://lore/inbox', name: `${label} inbox`, mimeType: APP }],
    readResource: async (uri) => ({ contents: [{ uri, mimeType: APP, text: `<p>${label}</p>` }] }),
    extensions: () => ({ 'io.modelcontextprotocol/ui': { mimeTypes: [APP] } }),
  };
}

const call = {
  token: null,
  era: 'modern' as const,
  requestId: 'r',
  signal: new AbortController().signal,
  sampling: undefined,
  progress: async () => {},
};

describe('app resources through the aggregator', () => {
  it('keeps ui:// when it namespaces a URI', () => {
    expect(namespacedUri('ui://lore/inbox', 'ext')).toBe('ui://ext/lore/inbox');
    expect(namespacedUri('file:///a.txt', 'ext')).toBe('file:///a.txt');
  });

  it('namespaces a prefixed upstream app, rewrites its tool, reads it back, and advertises the extension', async () => {
    const agg = new Aggregator(
      [
        new Upstream({ name: 'queries', backend: appBackend('lore'), forwardIdentity: true, lore: true }),
        new Upstream({ name: 'other', backend: appBackend('other'), forwardIdentity: false, prefix: 'ext' }),
        new Upstream({ name: 'clash', backend: appBackend('clash'), forwardIdentity: false }),
      ],
      { log: createLogger({ name: 't', level: 'silent' }) },
    );
    await agg.start();
    try {
      expect(agg.listResources().map((r) => r.uri)).toEqual([
        'ui://lore/inbox',
        'ui://ext/lore/inbox',
        'ui://clash/lore/inbox',
      ]);
      const uiOf = (name: string) =>
        (agg.listTools().find((t) => t.name === name)?._meta as { ui?: unknown } | undefined)?.ui;
      expect(uiOf('lore_list')).toEqual({ resourceUri: 'ui://lore/inbox', visibility: ['model', 'app'] });
      expect(uiOf('ext_other_list')).toEqual({
        resourceUri: 'ui://ext/lore/inbox',
        visibility: ['model', 'app'],
      });
      expect(uiOf('clash_list')).toEqual({
        resourceUri: 'ui://clash/lore/inbox',
        visibility: ['model', 'app'],
      });
      const read = await agg.readResource('ui://ext/lore/inbox', call);
      expect(read.contents).toEqual([{ uri: 'ui://ext/lore/inbox', mimeType: APP, text: '<p>other</p>' }]);
      expect(agg.extensions()).toEqual({ 'io.modelcontextprotocol/ui': { mimeTypes: [APP] } });
    } finally {
      await agg.stop();
    }
  });
});
