import { ParseLimitError } from './limits.js';
import { hexValue, isDelimiter, isPdfSpace } from './pdf-bytes.js';

/**
 * Reads decoded stream data as PDF content (strings, comments, dictionaries) and throws a
 * `size` ParseLimitError when one string holds more than `max` characters. An inline image's
 * data (`ID` … `EI`) is passed over as pdf.js passes over it. Stops reading a stream at the
 * first other byte outside a string that content never has (binary data: a font, a picture),
 * where parentheses mean nothing: a content stream with such a byte before a long string is
 * bounded by the stream cap, the page's text limit and the parser's memory instead.
 */
export class StringScan {
  private depth = 0;
  private escape = false;
  private hex = false;
  private comment = false;
  private lessThan = false;
  private chars = 0;
  private binary = false;
  /** Inside an inline image's data: 0 no; 1 in data, 2 after a space, 3 after ` E`, 4 after ` EI`. */
  private inline = 0;
  /** The last two bytes outside strings, and whether the byte before them ended a token. */
  private last1 = 0x20;
  private last2 = 0x20;
  private beforeLast = true;
  longest = 0;

  constructor(private readonly max: number) {}

  push(chunk: Uint8Array) {
    if (this.binary) return;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.depth > 0) {
        if (this.escape) this.escape = false;
        else if (b === 0x5c) {
          this.escape = true;
          continue;
        } else if (b === 0x28) this.depth++;
        else if (b === 0x29 && --this.depth === 0) {
          this.close();
          continue;
        }
        this.count(1);
      } else if (this.hex) {
        if (b === 0x3e) {
          this.chars = Math.ceil(this.chars);
          this.hex = false;
          this.close();
        } else if (hexValue(b) !== -1) this.count(0.5);
      } else if (this.inline) {
        this.inlineStep(b);
      } else if (this.comment) {
        if (b === 0x0a || b === 0x0d) this.comment = false;
      } else if (this.lessThan) {
        this.lessThan = false;
        if (b !== 0x3c) {
          this.hex = true;
          this.chars = 0;
          if (hexValue(b) !== -1) this.count(0.5);
          else if (b === 0x3e) this.hex = false;
        }
      } else if (b === 0x28) {
        this.depth = 1;
        this.chars = 0;
      } else if (b === 0x3c) this.lessThan = true;
      else if (b === 0x25) this.comment = true;
      else if ((b < 0x20 && !isPdfSpace(b)) || b >= 0x7f) {
        this.binary = true;
        return;
      } else this.operator(b);
    }
  }

  /** Notes the bytes of operators: the `ID` of an inline image starts its data after one space. */
  private operator(b: number) {
    if (isPdfSpace(b) && this.last2 === 0x49 && this.last1 === 0x44 && this.beforeLast) this.inline = 1;
    this.beforeLast = isPdfSpace(this.last2) || isDelimiter(this.last2);
    this.last2 = this.last1;
    this.last1 = b;
  }

  /** pdf.js ends an inline image's data at `EI` between spaces (or a delimiter after it). */
  private inlineStep(b: number) {
    const space = isPdfSpace(b);
    if (this.inline === 4 && (space || isDelimiter(b))) {
      this.inline = 0;
      this.last2 = 0x20;
      this.last1 = 0x20;
      this.beforeLast = true;
      if (b === 0x28) {
        this.depth = 1;
        this.chars = 0;
      }
      return;
    }
    if (space) this.inline = 2;
    else if (this.inline === 2 && b === 0x45) this.inline = 3;
    else if (this.inline === 3 && b === 0x49) this.inline = 4;
    else this.inline = 1;
  }

  private count(n: number) {
    this.chars += n;
    if (this.chars > this.max)
      throw new ParseLimitError(
        'size',
        `a string in a stream of the PDF holds more than ${this.max.toLocaleString('en-US')} characters`,
      );
  }

  private close() {
    if (this.chars > this.longest) this.longest = this.chars;
    this.chars = 0;
  }
}
