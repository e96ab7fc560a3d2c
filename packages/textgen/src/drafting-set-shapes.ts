import type { DraftCase } from './drafting-set.js';

/**
 * Cases of the drafting set about the shape of an answer: code blocks, lists and tables that must
 * come through whole (facts spanning several lines), a part of the question answered only by a
 * passage that shares no word with it, names the answer must keep, and questions the knowledge
 * answers only in part (`notCovered`: what the closing note must name).
 */
export const SHAPED_CASES: DraftCase[] = [
  {
    question: 'What has happened recently in quantum computing?',
    passages: [
      'Quantum computing drew record venture funding this year, and quantum computing cloud services added new regions.',
      'Several quantum computing vendors announced roadmaps for larger chips.',
      'A surface-code logical qubit kept its error rate falling as the code distance grew: the first error-correction milestone below threshold.',
    ],
    facts: ['record venture funding', 'error-correction milestone below threshold'],
  },
  {
    question: 'How do I enable CORS in a Hono app?',
    passages: [
      "Hono ships a CORS middleware. Register it before your routes:\n\n```ts\nimport { cors } from 'hono/cors'\n\napp.use('/api/*', cors())\n```\n\nBy default every origin is allowed.",
      'Hono runs on Node, Bun, Deno and edge runtimes.',
    ],
    facts: [
      "```ts\nimport { cors } from 'hono/cors'\n\napp.use('/api/*', cors())\n```",
      'every origin is allowed',
    ],
  },
  {
    question: 'How do I install the command line tool and start a project?',
    passages: [
      'The command line tool needs Node 20. Install it globally and start a project with:\n\n```sh\nnpm install -g lore-cli\nlore init my-project\n```',
      'Projects can also be created from the web console.',
    ],
    facts: ['npm install -g lore-cli\nlore init my-project'],
  },
  {
    question: 'What are the steps to reset a password?',
    passages: [
      'Passwords must be at least twelve characters long.',
      'To reset a password:\n1. Open Settings.\n2. Choose Security.\n3. Click Reset password and follow the email link.',
    ],
    facts: ['1. Open Settings.\n2. Choose Security.\n3. Click Reset password and follow the email link.'],
  },
  {
    question: 'How do I read a CSV file with pandas?',
    passages: [
      "Use read_csv, which infers column types:\n\n```python\nimport pandas as pd\ndf = pd.read_csv('data.csv')\n```",
      'Pandas can also write Parquet files with to_parquet.',
    ],
    facts: ["import pandas as pd\ndf = pd.read_csv('data.csv')"],
  },
  {
    question: 'Which plans exist and what do they cost?',
    passages: [
      'Plans and prices:\n\n| Plan | Price per month |\n|---|---|\n| Free | 0 USD |\n| Team | 20 USD |\n| Enterprise | on request |',
      'Invoices are sent on the first day of the month.',
    ],
    facts: ['| Free | 0 USD |\n| Team | 20 USD |\n| Enterprise | on request |'],
  },
  {
    question: 'Which environment variables does the docs service read?',
    passages: [
      'The docs service reads these environment variables:\n- LORE_DOCS_DB: the database URL\n- LORE_DOCS_CORPUS: the folder to ingest\n- LORE_PORT: the port to listen on',
      'The docs service answers questions with references.',
    ],
    facts: [
      '- LORE_DOCS_DB: the database URL\n- LORE_DOCS_CORPUS: the folder to ingest\n- LORE_PORT: the port to listen on',
    ],
  },
  {
    question: 'What did Ada Lovelace write about the Analytical Engine?',
    passages: [
      'The Analytical Engine was designed by Charles Babbage as a general-purpose mechanical computer.',
      'The Analytical Engine was never completed, for lack of funding.',
      'Ada Lovelace translated an article on the Analytical Engine and added notes, including Note G, an algorithm to compute Bernoulli numbers.',
    ],
    facts: ['Note G', 'Bernoulli numbers'],
  },
  {
    question: 'How do I revoke a key that leaked?',
    passages: [
      'Keys are created when an agent registers and are shown once.',
      'Keys are stored hashed, never in clear.',
      'To revoke a key, call agent_rotate_key: the leaked key stops working at once.',
    ],
    facts: ['agent_rotate_key', 'stops working at once'],
  },
  {
    question: 'Who founded the company and does it ship internationally?',
    passages: [
      'The company was founded in 2011 by Lena Berg in Malmö.',
      'It employs 120 people across two offices.',
    ],
    facts: ['founded in 2011'],
    notCovered: ['ship internationally'],
  },
  {
    question: 'What is the battery life of the X200 and is it waterproof?',
    passages: [
      'The X200 runs for 14 hours on one charge and recharges in 90 minutes.',
      'The X200 weighs 1.2 kg.',
    ],
    facts: ['14 hours'],
    notCovered: ['waterproof'],
  },
  {
    question: 'How do I set the NATS URL and which TLS options are supported?',
    passages: [
      'Set NATS_URL to the server address, for example nats://127.0.0.1:4222, to use JetStream.',
      'Without NATS_URL the services talk over an in-process bus.',
    ],
    facts: ['NATS_URL'],
    notCovered: ['TLS'],
  },
  {
    question: 'How does Lore compare with Kafka for event delivery?',
    passages: [
      'Lore delivers events through NATS JetStream with at-least-once delivery and message-id deduplication.',
      'Handlers are idempotent, so a redelivered event changes nothing.',
    ],
    facts: ['at-least-once'],
    notCovered: ['Kafka'],
  },
  {
    question: 'What does the retention job delete and how is it monitored?',
    passages: [
      'The retention job deletes answers older than 90 days and their citations.',
      'It runs at 03:00 every night.',
    ],
    facts: ['older than 90 days'],
    notCovered: ['monitored'],
  },
];
