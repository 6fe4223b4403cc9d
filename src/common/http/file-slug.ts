/**
 * A download's file-name stem from a code's name (`Table 1, Window` → `table-1-window`): accents dropped, letters
 * and digits kept (lower case), runs of spaces, `_` and `-` made one `-`, at most 80 characters, never starting or ending in `-`;
 * `fallback` when nothing is left.
 */
export function fileSlug(name: string, fallback: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[^\w\s-]/g, '')
      .toLowerCase()
      .replace(/[\s_-]+/g, '-')
      .replace(/^-+/, '')
      .slice(0, 80)
      .replace(/-+$/, '') || fallback
  );
}
