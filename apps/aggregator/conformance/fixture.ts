/**
 * The MCP conformance suite's fixtures (the tools, resources and prompts its server scenarios
 * call, by the names it calls them), served by a service built on the kit like any other:
 * `createService`, kit tools, resources, templates, prompts and completion. Run the suite
 * against it directly, and through the aggregator with it as an upstream, to prove both
 * paths carry every kind of content and every client interaction the protocol has.
 */
import {
  agentKeysOverBus,
  createService,
  type LoreService,
  type ServiceDeps,
  ToolError,
  toolsFor,
} from '@lore/kit';
import { UsersAgentKeys } from '@lore/schema/users';
import { z } from 'zod';

const tool = toolsFor<Record<string, never>>();
const none = z.object({});
const empty = z.object({});
const PUBLIC = {
  public: true,
  rateClass: 'none' as const,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** A 1×1 transparent PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A WAV file with a header and four silent 16-bit samples at 8 kHz. */
function wav(): string {
  const samples = 4;
  const b = Buffer.alloc(44 + samples * 2);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + samples * 2, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(samples * 2, 40);
  return b.toString('base64');
}

const embedded = {
  type: 'resource' as const,
  resource: {
    uri: 'test://embedded-resource',
    mimeType: 'text/plain',
    text: 'This is an embedded resource content.',
  },
};

const tools = [
  tool({
    ...PUBLIC,
    name: 'test_simple_text',
    title: 'Simple text',
    description: 'Returns a simple text response.',
    input: none,
    output: empty,
    async handler() {
      return { text: 'This is a simple text response for testing.', data: {} };
    },
  }),
  tool({
    ...PUBLIC,
    name: 'test_image_content',
    title: 'Image content',
    description: 'Returns an image (PNG).',
    input: none,
    output: empty,
    async handler() {
      return {
        text: 'A 1×1 PNG image.',
        data: {},
        content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
      };
    },
  }),
  tool({
    ...PUBLIC,
    name: 'test_audio_content',
    title: 'Audio content',
    description: 'Returns audio (WAV).',
    input: none,
    output: empty,
    async handler() {
      return {
        text: 'A short silent WAV clip.',
        data: {},
        content: [{ type: 'audio', data: wav(), mimeType: 'audio/wav' }],
      };
    },
  }),
  tool({
    ...PUBLIC,
    name: 'test_embedded_resource',
    title: 'Embedded resource',
    description: 'Returns an embedded text resource.',
    input: none,
    output: empty,
    async handler() {
      return { text: 'An embedded resource follows.', data: {}, content: [embedded] };
    },
  }),
  tool({
    ...PUBLIC,
    name: 'test_multiple_content_types',
    title: 'Mixed content',
    description: 'Returns text, an image and an embedded resource.',
    input: none,
    output: empty,
    async handler() {
      return {
        text: 'Multiple content types follow.',
        data: {},
        content: [{ type: 'image', data: PNG, mimeType: 'image/png' }, embedded],
      };
    },
  }),
  tool({
    ...PUBLIC,
    name: 'test_tool_with_logging',
    title: 'Logging',
    description: 'Sends log messages to the client while it runs.',
    input: none,
    output: empty,
    async handler(_input, ctx) {
      await ctx.notify('info', 'Tool execution started');
      await ctx.notify('info', 'Tool processing data');
      await ctx.notify('info', 'Tool execution completed');
      return { text: 'Logged three messages.', data: {} };
    },
  }),
  tool({
    ...PUBLIC,
    name: 'test_error_handling',
    title: 'Error',
    description: 'Always fails, as a tool error the client shows.',
    input: none,
    output: empty,
    async handler() {
      throw new ToolError(409, 'This tool intentionally returns an error for testing');
    },
  }),
  tool({
    ...PUBLIC,
    name: 'test_tool_with_progress',
    title: 'Progress',
    description: 'Reports progress (0, 50, 100 of 100) while it runs.',
    input: none,
    output: empty,
    async handler(_input, ctx) {
      for (const p of [0, 50, 100]) await ctx.progress(p, 100, `step ${p / 50 + 1} of 3`);
      return { text: 'Progress reported.', data: {} };
    },
  }),
  tool({
    ...PUBLIC,
    name: 'test_sampling',
    title: 'Sampling',
    description: "Asks the client's model to answer a prompt.",
    input: z.object({ prompt: z.string().min(1).max(10_000) }),
    output: empty,
    async handler({ prompt }, ctx) {
      if (!ctx.sampling) throw new ToolError(400, 'This client does not offer sampling.');
      const reply = await ctx.sampling.createMessage({
        systemPrompt: 'You are a helpful assistant.',
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      });
      return { text: `LLM response: ${reply}`, data: {} };
    },
  }),
  tool({
    ...PUBLIC,
    name: 'test_elicitation',
    title: 'Elicitation',
    description: "Asks the client's user for a username and an email.",
    input: z.object({ message: z.string().min(1).max(1000) }),
    output: empty,
    async handler({ message }, ctx) {
      if (!ctx.elicitation) throw new ToolError(400, 'This client does not offer elicitation.');
      const answer = await ctx.elicitation.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return {
        text: `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
        data: {},
      };
    },
  }),
  tool({
    ...PUBLIC,
    name: 'test_elicitation_sep1034_defaults',
    title: 'Elicitation with defaults',
    description: 'Asks for a form whose fields carry default values.',
    input: none,
    output: empty,
    async handler(_input, ctx) {
      if (!ctx.elicitation) throw new ToolError(400, 'This client does not offer elicitation.');
      const answer = await ctx.elicitation.elicit({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: {
              type: 'string',
              description: 'User status',
              enum: ['active', 'inactive', 'pending'],
              default: 'active',
            },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
        },
      });
      return { text: `Elicitation completed: action=${answer.action}`, data: {} };
    },
  }),
  tool({
    ...PUBLIC,
    name: 'test_elicitation_sep1330_enums',
    title: 'Elicitation with enums',
    description: 'Asks for a form with every kind of enum field.',
    input: none,
    output: empty,
    async handler(_input, ctx) {
      if (!ctx.elicitation) throw new ToolError(400, 'This client does not offer elicitation.');
      const titled = [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ];
      const answer = await ctx.elicitation.elicit({
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: { type: 'string', oneOf: titled },
            legacyEnum: {
              type: 'string',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: { type: 'array', items: { anyOf: titled } },
          },
        },
      } as never);
      return { text: `Elicitation completed: action=${answer.action}`, data: {} };
    },
  }),
  tool({
    ...PUBLIC,
    name: 'json_schema_2020_12_tool',
    title: 'JSON Schema 2020-12',
    description: 'Tool with JSON Schema 2020-12 features',
    input: z.strictObject({
      name: z.string().optional(),
      address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
    }),
    // What the zod schema accepts, spelled with `$schema`, `$defs` and `$ref` as SEP-1613 lists it.
    inputJsonSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
    output: empty,
    async handler(input) {
      return { text: `Received ${JSON.stringify(input)}`, data: {} };
    },
  }),
];

const ARGS = ['alpha', 'beta', 'gamma', 'paris', 'park', 'party', 'test', 'testing'];

/** The fixture service: what the suite expects, on the kit's own serving path. */
export function createConformanceFixture(deps: ServiceDeps): LoreService {
  return createService({
    name: 'conformance',
    version: '1.0.0',
    title: 'Conformance fixtures',
    tools,
    ports: {},
    deps,
    agentKeys: agentKeysOverBus(UsersAgentKeys),
    resources: [
      {
        uri: 'test://static-text',
        name: 'Static text',
        mimeType: 'text/plain',
        read: () => 'This is the content of the static text resource.',
      },
      {
        uri: 'test://static-binary',
        name: 'Static binary',
        mimeType: 'image/png',
        read: () => Buffer.from(PNG, 'base64'),
      },
      {
        uri: 'test://watched-resource',
        name: 'Watched resource',
        description: 'A resource clients may subscribe to.',
        mimeType: 'text/plain',
        read: () => 'Watched resource content.',
      },
    ],
    resourceTemplates: [
      {
        uriTemplate: 'test://template/{id}/data',
        name: 'Template data',
        description: 'Data for one id.',
        mimeType: 'application/json',
        read: ({ id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        complete: { id: (v) => ['123', '456', '789'].filter((x) => x.startsWith(v)) },
      },
    ],
    prompts: [
      {
        name: 'test_simple_prompt',
        description: 'A simple prompt without arguments.',
        get: () => [
          { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
        ],
      },
      {
        name: 'test_prompt_with_arguments',
        description: 'A prompt with two arguments.',
        arguments: [
          { name: 'arg1', description: 'First test argument', required: true },
          { name: 'arg2', description: 'Second test argument', required: true },
        ],
        get: ({ arg1, arg2 }) => [
          {
            role: 'user',
            content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
          },
        ],
        complete: { arg1: (v) => ARGS.filter((x) => x.startsWith(v.toLowerCase())) },
      },
      {
        name: 'test_prompt_with_embedded_resource',
        description: 'A prompt that embeds a resource.',
        arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
        get: ({ resourceUri }) => [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: {
                uri: resourceUri!,
                mimeType: 'text/plain',
                text: 'Embedded resource content for testing.',
              },
            },
          },
          { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
        ],
      },
      {
        name: 'test_prompt_with_image',
        description: 'A prompt with an image.',
        get: () => [
          { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ],
      },
    ],
  });
}
