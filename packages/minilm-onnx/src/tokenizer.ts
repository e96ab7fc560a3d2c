import { readFileSync } from 'node:fs';

/** Token ids of one text, [CLS] … [SEP], at most `maxTokens` long. */
export type TokenIds = number[];

interface TokenizerJson {
  added_tokens: { id: number; content: string; special: boolean }[];
  normalizer: { type: string; lowercase?: boolean; strip_accents?: boolean | null };
  model: {
    type: string;
    vocab: Record<string, number>;
    unk_token: string;
    continuing_subword_prefix: string;
    max_input_chars_per_word: number;
  };
}

const CONTROL = /\p{C}/u;
const WHITESPACE = /\p{White_Space}/u;
const PUNCTUATION = /[!-/:-@[-`{-~]|\p{P}/u;
const MARK_NONSPACING = /\p{Mn}/gu;

/** The CJK ideograph blocks BERT splits character by character (as Google's BERT does). */
function isChinese(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

/**
 * BERT's uncased WordPiece tokenizer as `tokenizer.json` describes it (HF tokenizers' BertNormalizer,
 * BertPreTokenizer, WordPiece and the [CLS] A [SEP] template): control characters dropped,
 * whitespace unified, CJK ideographs split apart, accents stripped (NFD, non-spacing marks
 * removed), lower-cased; words split at whitespace and at every punctuation character; each word
 * matched greedily longest-first against the vocabulary with `##` continuations, a word with no
 * match (or over 100 characters) becoming [UNK]. The special tokens ([CLS], [SEP], [PAD], [UNK],
 * [MASK]) written literally in a text are kept as those tokens, as the reference tokenizer does.
 */
export class WordPieceTokenizer {
  readonly clsId: number;
  readonly sepId: number;
  readonly padId: number;
  private readonly unkId: number;
  private readonly vocab: Map<string, number>;
  private readonly prefix: string;
  private readonly maxCharsPerWord: number;
  private readonly lowercase: boolean;
  private readonly stripAccents: boolean;
  private readonly special: Map<string, number>;
  private readonly specialPattern: RegExp | null;
  private readonly cache = new Map<string, number[]>();

  constructor(json: TokenizerJson) {
    if (json.model.type !== 'WordPiece')
      throw new Error(`tokenizer model ${json.model.type} is not WordPiece`);
    this.vocab = new Map(Object.entries(json.model.vocab));
    const id = (token: string): number => {
      const v = this.vocab.get(token);
      if (v === undefined) throw new Error(`the vocabulary has no ${token}`);
      return v;
    };
    this.unkId = id(json.model.unk_token);
    this.clsId = id('[CLS]');
    this.sepId = id('[SEP]');
    this.padId = id('[PAD]');
    this.prefix = json.model.continuing_subword_prefix;
    this.maxCharsPerWord = json.model.max_input_chars_per_word;
    this.lowercase = json.normalizer.lowercase ?? true;
    // BertNormalizer: strip_accents null means "as lowercase".
    this.stripAccents = json.normalizer.strip_accents ?? this.lowercase;
    this.special = new Map(json.added_tokens.filter((t) => t.special).map((t) => [t.content, t.id]));
    const escaped = [...this.special.keys()].map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    this.specialPattern = escaped.length > 0 ? new RegExp(`(${escaped.join('|')})`) : null;
  }

  static fromFile(path: string): WordPieceTokenizer {
    return new WordPieceTokenizer(JSON.parse(readFileSync(path, 'utf8')) as TokenizerJson);
  }

  /** [CLS] + the text's word pieces + [SEP], cut so the whole is at most `maxTokens`. */
  encode(text: string, maxTokens = 256): TokenIds {
    const ids: number[] = [this.clsId];
    const budget = maxTokens - 1;
    const parts = this.specialPattern ? text.split(this.specialPattern) : [text];
    outer: for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (i % 2 === 1) {
        if (ids.length >= budget) break;
        ids.push(this.special.get(part)!);
        continue;
      }
      for (const word of this.preTokenize(this.normalize(part))) {
        for (const piece of this.wordPiece(word)) {
          if (ids.length >= budget) break outer;
          ids.push(piece);
        }
      }
    }
    ids.push(this.sepId);
    return ids;
  }

  /** The word pieces of a text as strings, without [CLS]/[SEP] (for reading, not for the model). */
  tokenize(text: string): string[] {
    const byId = new Map([...this.vocab].map(([k, v]) => [v, k]));
    return this.encode(text, Number.MAX_SAFE_INTEGER)
      .slice(1, -1)
      .map((id) => byId.get(id)!);
  }

  normalize(text: string): string {
    let out = '';
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (ch === '\t' || ch === '\n' || ch === '\r' || WHITESPACE.test(ch)) {
        out += ' ';
      } else if (cp === 0 || cp === 0xfffd || CONTROL.test(ch)) {
        // dropped
      } else if (isChinese(cp)) {
        out += ` ${ch} `;
      } else {
        out += ch;
      }
    }
    if (this.stripAccents) out = out.normalize('NFD').replace(MARK_NONSPACING, '');
    if (this.lowercase) out = out.toLowerCase();
    return out;
  }

  /** Whitespace-separated words, each punctuation character a word of its own. */
  preTokenize(text: string): string[] {
    const words: string[] = [];
    let current = '';
    for (const ch of text) {
      if (WHITESPACE.test(ch)) {
        if (current) words.push(current);
        current = '';
      } else if (PUNCTUATION.test(ch)) {
        if (current) words.push(current);
        words.push(ch);
        current = '';
      } else {
        current += ch;
      }
    }
    if (current) words.push(current);
    return words;
  }

  wordPiece(word: string): number[] {
    const cached = this.cache.get(word);
    if (cached) return cached;
    const chars = Array.from(word);
    let pieces: number[] = [];
    if (chars.length > this.maxCharsPerWord) {
      pieces = [this.unkId];
    } else {
      let start = 0;
      while (start < chars.length) {
        let end = chars.length;
        let found: number | undefined;
        while (start < end) {
          const sub = (start > 0 ? this.prefix : '') + chars.slice(start, end).join('');
          found = this.vocab.get(sub);
          if (found !== undefined) break;
          end--;
        }
        if (found === undefined) {
          pieces = [this.unkId];
          break;
        }
        pieces.push(found);
        start = end;
      }
    }
    if (this.cache.size < 50_000) this.cache.set(word, pieces);
    return pieces;
  }
}
