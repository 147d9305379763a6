/**
 * Cuts a sentence's token ids into chunks the model accepts (`max_input_tokens`): at most
 * `limit` ids each, cut before a word start (a piece beginning with U+2581) in the second half
 * of the window when there is one, else exactly at the limit. Pure.
 */
export function chunkIds(ids: readonly number[], wordStarts: readonly boolean[], limit: number): number[][] {
  const chunks: number[][] = [];
  let start = 0;
  while (ids.length - start > limit) {
    let cut = start + limit;
    for (let i = cut; i > start + Math.floor(limit / 2); i--) {
      if (wordStarts[i]) {
        cut = i;
        break;
      }
    }
    chunks.push(ids.slice(start, cut));
    start = cut;
  }
  chunks.push(ids.slice(start));
  return chunks;
}
