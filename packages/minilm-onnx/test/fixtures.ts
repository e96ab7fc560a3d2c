/** Texts the tests and the bench embed: short and long, accents, punctuation, numbers, CJK, code. */
const longParagraph = Array.from(
  { length: 40 },
  (_, i) =>
    `Paragraph ${i + 1}: the relay replays the outbox to NATS, and a consumer that fell behind catches up from the stream's first sequence (${i * 17}).`,
).join(' ');

export const SENTENCES: readonly string[] = [
  'hello world',
  'How do I rotate the signing key of a node?',
  'What is the capital of France?',
  'The quick brown fox jumps over the lazy dog.',
  'Café naïve résumé — über façade, coöperate and Ångström.',
  'Señor Muñoz paid €1,234.56 (≈ $1,300) on 2024-03-15 at 09:45:00Z.',
  'error: connect ECONNREFUSED 127.0.0.1:4222 — is nats-server running?',
  'const x = await fetch("/api/v1/items?id=" + id); // TODO: retries!!!',
  '北京是中国的首都，东京是日本的首都。',
  'Привет, мир! Как дела?',
  "Don't panic: it's only the 3rd retry of 10 (30%).",
  '   leading and trailing whitespace\tand\ttabs\nand newlines   ',
  'UPPERCASE WORDS AND MiXeD cAsE tokens',
  'antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis',
  'a [SEP] literal and a [MASK] token in the text',
  'emoji 🚀 and symbols ★ ☃ ∑ √ ∞',
  '',
  'x',
  longParagraph,
  longParagraph.slice(0, 900),
  'ﬁ ligatures, full-width ＡＢＣ１２３, and zero\u200bwidth space',
];

/** A long text: over 256 tokens, so both runtimes cut it. */
export const LONG_TEXT = longParagraph;
