/**
 * A deterministic generator of technical documentation for the search and ingest benchmarks:
 * sections of realistic-looking prose about many distinct topics, with a Zipf-distributed
 * vocabulary in which the common English words come first (so "the", "of", "configure",
 * "server" are everywhere, as in real documentation), then a technical vocabulary, then a long
 * tail of made-up product names and identifiers. Questions are natural language and include
 * common words ("how do I configure the … for …?").
 *
 * Same seed, same corpus: every run measures the same text.
 */

import { seededRandom as rng } from '@lore/kit/testing';

// The most frequent English words (roughly in frequency order), stop words included.
const COMMON = (
  'the of and to a in is it you that he was for on are with as his they be at one have this from or had by ' +
  'not word but what some we can out other were all there when up use your how said an each she which do ' +
  'their time if will way about many then them write would like so these her long make thing see him two ' +
  'has look more day could go come did number sound no most people my over know water than call first who ' +
  'may down side been now find any new work part take get place made live where after back little only ' +
  'round man year came show every good me give our under name very through just form sentence great think ' +
  'say help low line differ turn cause much mean before move right boy old too same tell does set three ' +
  'want air well also play small end put home read hand port large spell add even land here must big high ' +
  'such follow act why ask men change went light kind off need house picture try us again animal point ' +
  'mother world near build self earth father head stand own page should country found answer school grow ' +
  'study still learn plant cover food sun four between state keep eye never last let thought city tree ' +
  'cross farm hard start might story saw far sea draw left late run while press close night real life few ' +
  'north open seem together next white children begin got walk example ease paper group always music those ' +
  'both mark often letter until mile river car feet care second book carry took science eat room friend ' +
  'began idea fish mountain stop once base hear horse cut sure watch color face wood main enough plain girl ' +
  'usual young ready above ever red list though feel talk bird soon body dog family direct pose leave song ' +
  'measure door product black short numeral class wind question happen complete ship area half rock order ' +
  'fire south problem piece told knew pass since top whole king space heard best hour better true during ' +
  'hundred five remember step early hold west ground interest reach fast verb sing listen six table travel ' +
  'less morning ten simple several vowel toward war lay against pattern slow center love person money serve ' +
  'appear road map rain rule govern pull cold notice voice unit power town fine certain fly fall lead cry ' +
  'dark machine note wait plan figure star box noun field rest correct able pound done beauty drive stood ' +
  'contain front teach week final gave green oh quick develop ocean warm free minute strong special mind ' +
  'behind clear tail produce fact street inch multiply nothing course stay wheel full force blue object ' +
  'decide surface deep moon island foot system busy test record boat common gold possible plane stead dry ' +
  'wonder laugh thousand ago ran check game shape equate hot miss brought heat snow tire bring yes distant ' +
  'fill east paint language among'
).split(' ');

// Words of technical documentation (verbs, nouns, adjectives), before the long tail.
const TECH = (
  'configure server client request response cache database index query timeout retry cluster node ' +
  'deployment container token session file default value option setting parameter environment variable ' +
  'install update upgrade version release build compile test log error warning message event queue stream ' +
  'worker thread process memory disk network port host address proxy gateway route path endpoint api key ' +
  'secret certificate user account role permission policy access authentication authorization schema table ' +
  'column row record field type string number boolean array object list map set limit size count rate ' +
  'batch job task schedule interval delay backoff connection pool socket channel buffer payload header body ' +
  'method function module package library plugin extension command flag argument output input format json ' +
  'yaml config directory folder storage volume bucket snapshot backup restore replica shard partition ' +
  'primary secondary leader follower consensus transaction commit rollback lock migration latency ' +
  'throughput metric trace span monitor alert dashboard health readiness liveness probe restart shutdown ' +
  'signal handler callback promise async sync load balance scale replicate encrypt decrypt hash sign verify ' +
  'validate parse serialize compress upload download fetch publish subscribe consume produce emit listen ' +
  'bind mount deploy rollout revision image registry tag label annotation selector namespace service ' +
  'ingress egress firewall rule tls dns domain resolver lookup template render view component state store ' +
  'reducer action middleware filter sort page cursor offset debug trace profile benchmark optimize tune ' +
  'enable disable override inherit extend wrap retry idempotent concurrent parallel sequential blocking ' +
  'fallback circuit breaker quota throttle window bucket counter gauge histogram percentile'
).split(' ');

const SYLLABLES = (
  'ka lo ri ten sum bra qui dor fel mon zu pha nor vel tis gra ex an ul sy ron mar ket vin cor dal ' +
  'per tho lin sel ax om ir bel cas nim rup vor hex'
).split(' ');

/** The vocabulary, most frequent first: common English, technical words, then the tail. */
export interface Vocabulary {
  words: string[];
  /** Cumulative Zipf weights (s = 1), for sampling by binary search. */
  cdf: Float64Array;
  /** Where the tail (made-up names) starts in `words`. */
  tailStart: number;
}

export function vocabulary(tailSize = 20_000): Vocabulary {
  const r = rng(7);
  const seen = new Set<string>([...COMMON, ...TECH]);
  const tail: string[] = [];
  while (tail.length < tailSize) {
    const n = 2 + Math.floor(r() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      tail.push(w);
    }
  }
  const words = [...COMMON, ...TECH, ...tail];
  const cdf = new Float64Array(words.length);
  let sum = 0;
  for (let i = 0; i < words.length; i++) {
    sum += 1 / (i + 1);
    cdf[i] = sum;
  }
  for (let i = 0; i < cdf.length; i++) cdf[i]! /= sum;
  return { words, cdf, tailStart: COMMON.length + TECH.length };
}

function zipf(v: Vocabulary, u: number): string {
  let lo = 0;
  let hi = v.cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (v.cdf[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return v.words[lo]!;
}

/** One topic: a product or subsystem name and the terms that recur in its sections. */
export interface Topic {
  name: string;
  terms: string[];
  /** An identifier (config key) of the topic, e.g. `kaloriPoolSize`. */
  key: string;
}

const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);

/** A corpus generator: topics, sections, documents and questions, all from one seed. */
export class Corpus {
  readonly vocab: Vocabulary;
  readonly topics: Topic[];
  private readonly r: () => number;

  constructor(seed = 42, topicCount = 2000) {
    this.vocab = vocabulary();
    this.r = rng(seed);
    const tail = this.vocab.words.slice(this.vocab.tailStart);
    this.topics = Array.from({ length: topicCount }, (_, i) => {
      // Topic terms come from the middle of the tail (rare but not unique) and the technical words.
      const pick = () => tail[200 + Math.floor(this.r() * (tail.length - 200))]!;
      const name = `${pick()}`;
      const terms = [name, pick(), pick(), pick(), TECH[Math.floor(this.r() * TECH.length)]!];
      const key = `${name}${cap(TECH[Math.floor(this.r() * TECH.length)]!)}${cap(TECH[i % TECH.length]!)}`;
      return { name, terms, key };
    });
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }

  private word(): string {
    return zipf(this.vocab, this.r());
  }

  private tech(): string {
    return this.pick(TECH);
  }

  /** One sentence: a template of documentation prose, or Zipf filler with topic terms mixed in. */
  sentence(t: Topic): string {
    const term = () => this.pick(t.terms);
    const n = () => String(1 + Math.floor(this.r() * 500));
    switch (Math.floor(this.r() * 8)) {
      case 0:
        return `To ${this.tech()} the ${term()} ${this.tech()} for ${term()}, set \`${t.key}\` to ${n()} in the ${this.tech()} file.`;
      case 1:
        return `The ${term()} ${this.tech()} ${this.tech()}s every ${this.tech()} when the ${this.tech()} is ${this.word()}.`;
      case 2:
        return `If ${cap(t.name)} fails with \`${this.tech().toUpperCase()}_${this.word().toUpperCase()}\`, check the ${this.tech()} of the ${term()} and ${this.word()} the ${this.tech()}.`;
      case 3:
        return `By default the ${this.tech()} ${this.tech()} is ${n()} ms, which is ${this.word()} for most ${term()} ${this.tech()}s.`;
      default: {
        const len = 10 + Math.floor(this.r() * 12);
        const words: string[] = [];
        for (let i = 0; i < len; i++) words.push(this.r() < 0.12 ? term() : this.word());
        return `${cap(words.join(' '))}.`;
      }
    }
  }

  /** A section body of about `chars` characters. */
  paragraph(t: Topic, chars: number): string {
    let p = '';
    while (p.length < chars) p += `${this.sentence(t)} `;
    return p.trim();
  }

  heading(t: Topic): string {
    return `${cap(this.tech())} ${this.pick(t.terms)} ${this.tech()}`;
  }

  /**
   * A Markdown document of `sections` sections (~`chars` characters each, one chunk each with
   * the default chunk size) about one topic.
   */
  markdown(t: Topic, sections: number, chars = 900, frontMatter = false): string {
    const parts: string[] = [];
    if (frontMatter)
      parts.push(`---\ntitle: ${cap(t.name)} ${this.tech()} guide\ndescription: ${this.sentence(t)}\n---\n`);
    parts.push(`# ${cap(t.name)} ${this.tech()} guide\n`);
    for (let s = 0; s < sections; s++) parts.push(`## ${this.heading(t)}\n\n${this.paragraph(t, chars)}\n`);
    return parts.join('\n');
  }

  /** A natural-language question about a topic, with common words. */
  question(t: Topic = this.pick(this.topics)): string {
    const term = () => this.pick(t.terms);
    switch (Math.floor(this.r() * 6)) {
      case 0:
        return `How do I configure the ${term()} ${this.tech()} for ${term()}?`;
      case 1:
        return `What is the default ${this.tech()} of ${cap(t.name)} when the ${this.tech()} restarts?`;
      case 2:
        return `Why does ${term()} fail with a ${this.tech()} error after I ${this.tech()} the ${this.tech()}?`;
      case 3:
        return `how can I make the ${term()} ${this.tech()} faster for a large ${this.tech()}`;
      case 4:
        return `Where do I set ${t.key} and what does it change in ${term()}?`;
      default:
        return `Is there a way to ${this.tech()} ${term()} without a ${this.tech()} on the ${this.word()} ${this.tech()}?`;
    }
  }

  topic(i: number): Topic {
    return this.topics[i % this.topics.length]!;
  }

  /** A word from the far end of the tail (for baselines: a rare single-term lookup). */
  rareWord(i: number): string {
    const w = this.vocab.words;
    return w[w.length - 1 - (i % 100)]!;
  }
}
