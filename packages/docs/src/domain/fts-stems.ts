import { pathWords, stemmedText, withIdentifierParts } from '@lore/search';

// What a chunk's FTS row holds, apart from its id: imported by the parsers' task module
// (`prepare.ts`), so it takes nothing but @lore/search.

/** The stems of a chunk's own fields (its text and heading path), as its FTS row holds them. */
export function chunkStems(chunk: { headingPath: string[]; text: string }): {
  text: string;
  heading: string;
} {
  return {
    text: stemmedText(withIdentifierParts(chunk.text)),
    heading: stemmedText(withIdentifierParts(chunk.headingPath.join(' '))),
  };
}

/** The stems of a document's title and URL path, shared by the FTS rows of all its chunks. */
export function titleStems(doc: { title: string; uri: string }): string {
  return stemmedText(withIdentifierParts(`${doc.title}\n${pathWords(doc.uri)}`));
}
