import { SHAPED_CASES } from './drafting-set-shapes.js';

/**
 * The drafting evaluation set: a question, the knowledge retrieval hands the drafter (several
 * passages, most of them on topic but only some answering each part), and the facts an answer
 * must contain (each a phrase that must appear, case-insensitive). Written as knowledge bases
 * and questions are, not shaped to the drafter.
 */
export interface DraftCase {
  question: string;
  passages: string[];
  facts: string[];
  /** The question is answered only in part: the draft must say so, naming these (case-insensitive). */
  notCovered?: string[];
}

const BASE_CASES: DraftCase[] = [
  {
    question: 'What are the latest developments in quantum computing?',
    passages: [
      'Quantum computing companies announced processors with more than a thousand physical qubits. Quantum computing startups raised record funding.',
      'Researchers demonstrated a logical qubit operating below the error-correction threshold, a milestone on the way to fault tolerance.',
      'Quantum computing is expected to affect cryptography; post-quantum standards were published by NIST.',
    ],
    facts: ['thousand physical qubits', 'error-correction threshold'],
  },
  {
    question: 'How do I rotate my API key and what happens to the old one?',
    passages: [
      'Call agent_rotate_key to get a new API key. The key is shown once.',
      'After rotation the old key stops working immediately; cached verifications are dropped.',
    ],
    facts: ['agent_rotate_key', 'old key stops working'],
  },
  {
    question: 'What is the sourdough starter ratio and how long should it ferment?',
    passages: [
      'Feed the starter at a 1:1:1 ratio of starter, flour and water by weight.',
      'Let the starter ferment for 4 to 6 hours at room temperature, until it doubles.',
      'Sourdough bread keeps for three days in a paper bag.',
    ],
    facts: ['1:1:1', '4 to 6 hours'],
  },
  {
    question: 'Which ports does the service listen on and how do I change them?',
    passages: [
      'The knowledge service listens on port 7404 by default.',
      'Set LORE_PORT or pass --port to change the port; LORE_HOST changes the interface.',
    ],
    facts: ['7404', 'LORE_PORT'],
  },
  {
    question: 'What causes the memory leak in the image resizer and how was it fixed?',
    passages: [
      'The image resizer leaked memory because decoded buffers were cached without a size bound.',
      'The fix replaced the cache with an LRU of 64 entries and freed buffers on eviction.',
      'The resizer supports JPEG, PNG and WebP.',
    ],
    facts: ['without a size bound', 'LRU of 64 entries'],
  },
  {
    question: 'Who founded the company and when did it go public?',
    passages: [
      'The company was founded in 2009 by Maria Lopez and Ken Adams in Lisbon.',
      'It went public on the Euronext exchange in 2021.',
      'Its headquarters moved to Porto in 2015.',
    ],
    facts: ['Maria Lopez', '2021'],
  },
  {
    question: 'What are the symptoms of iron deficiency and which foods help?',
    passages: [
      'Iron deficiency causes fatigue, pale skin and shortness of breath.',
      'Red meat, lentils and spinach are good sources of iron; vitamin C improves absorption.',
    ],
    facts: ['fatigue', 'lentils'],
  },
  {
    question: 'How does the cache invalidate entries and what is the default TTL?',
    passages: [
      'Entries are invalidated when the source document changes its content hash.',
      'The default TTL is 300 seconds; set CACHE_TTL to change it.',
      'The cache is stored in memory per process.',
    ],
    facts: ['content hash', '300 seconds'],
  },
  {
    question: 'What did the 2024 survey find about remote work productivity and employee retention?',
    passages: [
      'The 2024 survey found that remote workers reported 13% higher productivity.',
      'Companies offering remote work saw employee retention improve by 20%.',
      'Office occupancy stayed below pre-pandemic levels.',
    ],
    facts: ['13% higher productivity', 'retention improve by 20%'],
  },
  {
    question: 'How do I deploy to Kubernetes and scale the replicas?',
    passages: [
      'Apply the manifests in infra/k8s with kubectl apply -f infra/k8s to deploy.',
      'Scale with kubectl scale deployment/lore --replicas=3; every service is stateless.',
    ],
    facts: ['kubectl apply', '--replicas=3'],
  },
  {
    question: 'What are the side effects of the vaccine and who should not take it?',
    passages: [
      'Common side effects are a sore arm, mild fever and tiredness for a day or two.',
      'People with a severe allergy to any of its ingredients should not take the vaccine.',
    ],
    facts: ['sore arm', 'severe allergy'],
  },
  {
    question: 'How does photosynthesis produce oxygen and where does it happen?',
    passages: [
      'Photosynthesis splits water molecules in the light reactions, releasing oxygen.',
      'It happens in the chloroplasts of plant cells, in the thylakoid membranes.',
      'Plants use the glucose they make for growth.',
    ],
    facts: ['splits water', 'chloroplasts'],
  },
  {
    question: 'What is the refund policy and how long do refunds take?',
    passages: [
      'Orders can be refunded within 30 days of delivery if the item is unused.',
      'Refunds reach the original payment method within 5 to 10 business days.',
    ],
    facts: ['30 days', '5 to 10 business days'],
  },
  {
    question: 'Why did the database migration fail and how do I roll it back?',
    passages: [
      'The migration failed because a unique index was added to a column with duplicate values.',
      'Roll back with pnpm db:rollback, then remove the duplicates before migrating again.',
    ],
    facts: ['duplicate values', 'db:rollback'],
  },
  {
    question: 'Which rate limits apply to reads and to posts?',
    passages: [
      'Reads are limited to 100 calls a minute per agent.',
      'Posts are limited to 5 a minute; direct messages to 10 a minute.',
    ],
    facts: ['100 calls a minute', '5 a minute'],
  },
  {
    question: 'What is the boiling point of water at altitude and why does it change?',
    passages: [
      'At 3,000 metres water boils at about 90 °C.',
      'It changes because air pressure falls with altitude, and lower pressure lowers the boiling point.',
    ],
    facts: ['90 °C', 'air pressure'],
  },
  {
    question: 'How do I enable two-factor authentication and recover my account if I lose the phone?',
    passages: [
      'Enable two-factor authentication under Settings, Security, by scanning the QR code with an authenticator app.',
      'If you lose the phone, sign in with one of the ten recovery codes shown when you enabled it.',
    ],
    facts: ['scanning the QR code', 'recovery codes'],
  },
  {
    question: 'What were the main causes and consequences of the 1929 crash?',
    passages: [
      'The 1929 crash followed speculative buying on margin and overvalued stocks.',
      'It was followed by bank failures and the Great Depression, with unemployment reaching 25%.',
    ],
    facts: ['on margin', 'Great Depression'],
  },
  {
    question: 'Which languages does the tokenizer support and how fast is it?',
    passages: [
      'The tokenizer supports English, German, French and Japanese.',
      'It processes about 2 million tokens per second on one core.',
      'The tokenizer was rewritten last year.',
    ],
    facts: ['Japanese', '2 million tokens per second'],
  },
  {
    question: 'How do I configure CORS and which origins are allowed by default?',
    passages: [
      'Configure CORS with the origin option: a string, a list, or a function returning the allowed origin.',
      'By default every origin is allowed (the header is *).',
    ],
    facts: ['origin option', 'every origin is allowed'],
  },
  {
    question: 'What does the backup job do and when does it run?',
    passages: [
      'The backup job copies every database to object storage and keeps 14 daily copies.',
      'It runs at 02:00 UTC every night.',
    ],
    facts: ['object storage', '02:00 UTC'],
  },
  {
    question: 'How much water should a tomato plant get and how often should it be fertilised?',
    passages: [
      'Tomato plants need about 2.5 cm of water a week, more in hot weather.',
      'Fertilise tomatoes every two weeks once the first fruit sets.',
      'Tomatoes need at least six hours of sun.',
    ],
    facts: ['2.5 cm of water', 'every two weeks'],
  },
  {
    question: 'What is the difference between TCP and UDP for streaming video?',
    passages: [
      'TCP retransmits lost packets and delivers bytes in order, which adds latency.',
      'UDP sends datagrams without retransmission, so live video drops frames instead of stalling.',
    ],
    facts: ['retransmits lost packets', 'drops frames'],
  },
  {
    question: 'Which models does the embeddings endpoint accept and what is the vector size?',
    passages: [
      'The embeddings endpoint accepts text-embedding-3-small and nomic-embed-text.',
      'Vectors have 384 dimensions and are stored as float32.',
    ],
    facts: ['nomic-embed-text', '384 dimensions'],
  },
  {
    question: 'How did the team reduce build times and what was the result?',
    passages: [
      'The team cached dependencies and split tests across four parallel jobs.',
      'Build times fell from 22 minutes to 6 minutes.',
    ],
    facts: ['four parallel jobs', '22 minutes to 6 minutes'],
  },
  {
    question: 'What are the opening hours of the library and how many books can I borrow?',
    passages: [
      'The library opens 9:00 to 20:00 on weekdays and 10:00 to 16:00 on Saturdays.',
      'Members can borrow up to 12 books for three weeks.',
    ],
    facts: ['9:00 to 20:00', 'up to 12 books'],
  },
  {
    question: 'How do approval conditions work and who can change them?',
    passages: [
      'An approval condition accepts or rejects incoming questions automatically when it matches.',
      'Only the agent who owns the conditions can add or remove them, with cqAddAutoApprovalCondition and cqRemoveAutoApprovalCondition.',
    ],
    facts: ['accepts or rejects', 'cqAddAutoApprovalCondition'],
  },
  {
    question: 'Why is the sky blue and why are sunsets red?',
    passages: [
      'The sky is blue because air molecules scatter short blue wavelengths more than red (Rayleigh scattering).',
      'At sunset light crosses more atmosphere, so most blue is scattered away and red remains.',
    ],
    facts: ['Rayleigh scattering', 'more atmosphere'],
  },
  {
    question: 'What is the recommended dose of ibuprofen for adults and the maximum per day?',
    passages: [
      'Adults can take 200 to 400 mg of ibuprofen every four to six hours.',
      'Do not exceed 1,200 mg in a day without a doctor’s advice.',
    ],
    facts: ['200 to 400 mg', '1,200 mg'],
  },
  {
    question: 'How does the search rank results and what happens with no embeddings endpoint?',
    passages: [
      'Search ranks passages with BM25 over FTS5 and then rescores the best candidates by field.',
      'Without an embeddings endpoint, search is lexical only and still works offline.',
    ],
    facts: ['BM25', 'lexical only'],
  },
];

export const DRAFTING_SET: DraftCase[] = [...BASE_CASES, ...SHAPED_CASES];
