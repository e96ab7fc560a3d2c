import { defineConfig } from 'drizzle-kit';

export default defineConfig({ dialect: 'turso', schema: './src/tables.ts', out: './migrations' });
