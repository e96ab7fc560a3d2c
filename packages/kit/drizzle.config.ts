import { defineConfig } from 'drizzle-kit';

export default defineConfig({ dialect: 'turso', schema: './src/db/kit-tables.ts', out: './migrations' });
