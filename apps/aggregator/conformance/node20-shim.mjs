// The conformance CLI imports `globSync` from `fs`, which Node 22 added. On Node 20 this loader
// hands the CLI (and only the CLI) an `fs` that also has a small `globSync` for the one pattern
// shape it uses (`**/<file name>` under a directory). Nothing else changes.
import { register } from 'node:module';

register(new URL('./node20-hooks.mjs', import.meta.url));
