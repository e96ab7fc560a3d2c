import pino from 'pino';

export type Logger = pino.Logger;

/** JSON logs to stderr: stdout belongs to stdio MCP. Keys and authorization headers are redacted. */
export function createLogger(options: { name: string; level?: string } = { name: 'lore' }): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      redact: {
        paths: [
          'apiKey',
          'key',
          'authorization',
          '*.authorization',
          '*.apiKey',
          'headers.authorization',
          'req.headers.authorization',
        ],
        censor: '[redacted]',
      },
    },
    pino.destination(2),
  );
}
