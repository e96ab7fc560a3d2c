import { basename, extname } from 'node:path';
import {
  convertHtml,
  ParseLimitError,
  parserPool,
  pdfToText,
  streamIsolated,
  taskModule,
} from '@lore/ingest';
import { invalid, type ToolError, unsupportedMedia } from '@lore/kit';
import type { KnowledgeFormat, UpdateKnowledgeSourcesInput } from '@lore/schema/knowledge';
import { readAllowedFile, readFileSlot } from './paths.js';
import type { PreparedEnd, PreparedPart } from './prepare-source.js';
import { PreparedStream } from './prepared-stream.js';

/** Most characters of text one source may hold once extracted (a PDF can be small and wordy). */
export const MAX_TEXT_CHARS = 2_000_000;

/** A file turned into indexable text. */
export interface ExtractedDocument {
  name: string;
  format: KnowledgeFormat;
  /** Markdown for markdown/html, plain text otherwise. */
  text: string;
  pages: number | null;
  /** The text being split, stemmed and keyworded in a parser (see `prepareDocument`). */
  prepared?: PreparedStream;
}

export function formatFromName(name: string): KnowledgeFormat {
  switch (extname(name).toLowerCase()) {
    case '.md':
    case '.markdown':
    case '.mdx':
      return 'markdown';
    case '.html':
    case '.htm':
    case '.xhtml':
      return 'html';
    case '.pdf':
      return 'pdf';
    default:
      return 'text';
  }
}

/** What a knowledge source may be, as a refusal names them. */
export const ACCEPTED_TYPES = ['plain text (.txt)', 'Markdown (.md)', 'HTML (.html)', 'PDF (.pdf)'] as const;

// Files that are never text, whatever their bytes: executables, archives, images, audio, video,
// fonts, office documents and databases.
const BINARY_EXTENSIONS = new Set(
  (
    'exe dll so dylib bin msi apk dmg iso img wasm class jar war o a lib ' +
    'zip gz tgz bz2 xz 7z rar tar zst lz4 ' +
    'png jpg jpeg gif webp bmp ico tif tiff heic avif psd ' +
    'mp3 mp4 m4a wav ogg flac aac mov avi mkv webm ' +
    'woff woff2 ttf otf eot ' +
    'doc docx xls xlsx ppt pptx odt ods odp epub sqlite sqlite3 db parquet pickle pkl npy'
  ).split(' '),
);

/** A 415 when a name or its text says the file is not text; the text itself otherwise. */
function refuseBinary(name: string, fields: { name: string; content: string }, text: string): void {
  const ext = extname(name).slice(1).toLowerCase();
  const looksBinary =
    text.includes('\0') ||
    // Bytes that are not UTF-8 text decode as U+FFFD; text has few of them and few control characters.
    (text.match(/[\uFFFD\x01-\x08\x0E-\x1F\x7F]/g)?.length ?? 0) > Math.max(8, text.length / 20);
  if (BINARY_EXTENSIONS.has(ext) || looksBinary)
    throw unsupportedMedia(
      looksBinary ? fields.content : fields.name,
      `'${name}' is not a text file${looksBinary ? ' (its content is binary)' : ''}: a knowledge source can be ${ACCEPTED_TYPES.slice(0, -1).join(', ')} or ${ACCEPTED_TYPES.at(-1)}.`,
      ACCEPTED_TYPES,
    );
}

const isPdf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';

/** Which of the two ways of adding a source the input uses; a 400 naming the field otherwise. */
export function sourceRequest(
  input: UpdateKnowledgeSourcesInput,
): { kind: 'content'; name: string; content: string } | { kind: 'path'; path: string } {
  const { file_name: name, file_content: content, file_path: path } = input;
  if (path !== undefined) {
    if (content !== undefined)
      throw invalid(
        'file_content',
        'not with file_path',
        'Give either file_path, or file_name with file_content — not both.',
      );
    if (name !== undefined)
      throw invalid(
        'file_name',
        'not with file_path',
        "Give either file_path (the source takes the file's name), or file_name with file_content — not both.",
      );
    return { kind: 'path', path };
  }
  if (name === undefined && content === undefined)
    throw invalid(
      'file_path',
      'required: file_path, or file_name with file_content',
      'Give file_path, or file_name with file_content.',
    );
  if (name === undefined)
    throw invalid(
      'file_name',
      'required with file_content',
      'Missing required field: file_name (it names the source, e.g. notes.md).',
    );
  if (content === undefined)
    throw invalid('file_content', 'required with file_name', 'Missing required field: file_content.');
  return { kind: 'content', name, content };
}

/**
 * Reads, decodes and converts a source to text, enforcing the limits, and starts preparing it
 * for the index (its parse limits reject the stream's `next`, with the same 400).
 */
export async function extractDocument(
  input: UpdateKnowledgeSourcesInput,
  roots: readonly string[],
): Promise<ExtractedDocument> {
  const doc = await extractText(input, roots);
  const field = input.file_path !== undefined ? 'file_path' : 'file_content';
  return { ...doc, prepared: prepareDocument(doc, field) };
}

const PREPARE_MODULE = taskModule(import.meta.url, {
  source: './prepare-source.ts',
  built: './prepare-source.js',
});

/**
 * Splits, stems and keywords a document in a parser (`streamSource`), under the parse
 * limits of @lore/ingest; the pieces come in parts as they are ready. A limit (time, memory,
 * nesting) rejects the stream with a 400 naming it.
 */
export function prepareDocument(doc: ExtractedDocument, field = 'file_content'): PreparedStream {
  const pool = parserPool();
  const format = doc.format === 'markdown' || doc.format === 'html' ? 'markdown' : 'text';
  return new PreparedStream(async (onPart) => {
    try {
      return await streamIsolated<PreparedPart, PreparedEnd>(
        PREPARE_MODULE,
        'streamSource',
        [doc.text, format, pool.limits.maxNesting],
        onPart,
        pool,
      );
    } catch (err) {
      if (err instanceof ParseLimitError) throw limitError(doc.name, field, err);
      throw err;
    }
  });
}

async function extractText(
  input: UpdateKnowledgeSourcesInput,
  roots: readonly string[],
): Promise<ExtractedDocument> {
  const req = sourceRequest(input);
  if (req.kind === 'path') {
    const { bytes } = await readFileSlot(() => readAllowedFile(req.path, roots));
    const name = basename(req.path);
    const format = isPdf(bytes) ? 'pdf' : formatFromName(name);
    if (format === 'pdf') return fromPdf(name, bytes, 'file_path');
    const text = new TextDecoder('utf-8').decode(bytes);
    refuseBinary(name, { name: 'file_path', content: 'file_path' }, text);
    return fromText(name, format, text, 'file_path');
  }
  const format = formatFromName(req.name);
  if (format === 'pdf') return fromPdf(req.name, decodeBase64Pdf(req.content), 'file_content');
  refuseBinary(req.name, { name: 'file_name', content: 'file_content' }, req.content);
  return fromText(req.name, format, req.content, 'file_content');
}

function decodeBase64Pdf(content: string): Uint8Array {
  const b64 = content.replace(/^data:application\/pdf;base64,/i, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length === 0)
    throw invalid(
      'file_content',
      'base64 of the PDF file when file_name ends in .pdf',
      "For a .pdf file_name, file_content must be the PDF's bytes in base64.",
    );
  const bytes = Buffer.from(b64, 'base64');
  if (!isPdf(bytes))
    throw invalid(
      'file_content',
      'base64 of the PDF file when file_name ends in .pdf',
      'file_content does not decode to a PDF (it should start with %PDF-).',
    );
  return bytes;
}

async function fromPdf(name: string, bytes: Uint8Array, field: string): Promise<ExtractedDocument> {
  let extracted: { text: string; pages: number };
  try {
    extracted = await pdfToText(bytes);
  } catch (err) {
    if (err instanceof ParseLimitError) throw limitError(name, field, err);
    throw invalid(field, 'a readable PDF', `'${name}' is not a readable PDF.`);
  }
  return checked({ name, format: 'pdf', text: extracted.text, pages: extracted.pages }, field);
}

/** A 400 naming the parsing limit the document ran into (time, memory, pages, nesting). */
function limitError(name: string, field: string, err: ParseLimitError): ToolError {
  return invalid(
    field,
    `within the ${err.limit} limit for parsing`,
    `'${name}' was refused: ${err.message} (${err.limit} limit).`,
  );
}

async function fromText(
  name: string,
  format: KnowledgeFormat,
  raw: string,
  field: string,
): Promise<ExtractedDocument> {
  const text = raw.replace(/^\uFEFF/, '');
  if (text.includes('\0'))
    throw invalid(
      field,
      'text, not binary data',
      'file_content contains NUL characters: send text, or a .pdf name with base64.',
    );
  let body = text;
  if (format === 'html') {
    try {
      body = (await convertHtml(text)).markdown;
    } catch (err) {
      if (err instanceof ParseLimitError) throw limitError(name, field, err);
      throw invalid(field, 'readable HTML', `'${name}' could not be converted from HTML.`);
    }
  }
  return checked({ name, format, text: body, pages: null }, field);
}

function checked(doc: ExtractedDocument, field: string): ExtractedDocument {
  if (doc.text.trim() === '')
    throw invalid(
      field,
      'a file with text in it',
      doc.format === 'pdf'
        ? `'${doc.name}' has no text layer (scanned pages are not read).`
        : `'${doc.name}' is empty.`,
    );
  if (doc.text.length > MAX_TEXT_CHARS)
    throw invalid(
      field,
      'at most 2,000,000 characters of text',
      `'${doc.name}' holds ${doc.text.length} characters of text (at most ${MAX_TEXT_CHARS}).`,
    );
  return doc;
}
