import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model: string;
  temperature?: number;
  max_tokens?: number;
  response_format?: { type: string };
  messages: Array<{ role: string; content: string }>;
}

/** A tiny OpenAI chat-completions server on 127.0.0.1 with a scripted reply per request. */
export class FakeOpenAI {
  requests: Array<{ path: string; auth: string | undefined; body: ChatRequest }> = [];
  reply: (body: ChatRequest) => { status: number; content?: string; headers?: Record<string, string> } =
    () => ({
      status: 200,
      content: 'ok',
    });
  private server: Server = createServer((req, res) => void this.handle(req, res));
  baseUrl = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}/v1`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
    this.requests.push({ path: req.url, auth: req.headers.authorization, body });
    const r = this.reply(body);
    if (r.status !== 200) {
      res
        .writeHead(r.status, { 'content-type': 'application/json', ...r.headers })
        .end(JSON.stringify({ error: { message: 'boom', type: 'server_error' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-test',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: `${body.model}-served`,
        choices: [
          { index: 0, message: { role: 'assistant', content: r.content ?? '' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
  }
}
