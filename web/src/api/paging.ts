import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, asApiError } from './errors';

/** A list endpoint's page: `{data, has_more, next_cursor}` (every list of the API; `cursor` asks for the next page). */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string | null;
}

export interface PagedList<T> {
  items: T[];
  loading: boolean;
  error: ApiError | null;
  /** 1-based number of the page shown. */
  pageNumber: number;
  hasNext: boolean;
  hasPrevious: boolean;
  next(): void;
  previous(): void;
  /** Reloads the page shown (after a change). */
  reload(): void;
  /** Back to page 1 (after a filter change, done for you when `key` changes). */
  reset(): void;
}

/**
 * One page of a cursor list at a time: `fetchPage(cursor)` loads a page (cursor undefined = first). Next/previous walk a
 * stack of cursors, so page 400 of 10,000 codes costs what page 1 costs and the browser never holds them all. `key`
 * (the filters, as a string) restarts at page 1 when it changes.
 */
export function usePagedList<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, key: string): PagedList<T> {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<Page<T> | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError | null>(null);
  const [tick, setTick] = useState(0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  // Back to page 1 when the filters change (not on mount: that would load the first page twice).
  const lastKey = useRef(key);
  useEffect(() => {
    if (lastKey.current === key) return;
    lastKey.current = key;
    setCursors([undefined]);
  }, [key]);

  const cursor = cursors[cursors.length - 1];
  useEffect(() => {
    let live = true;
    setLoading(true);
    setError(null);
    fetchRef.current(cursor).then(
      (p) => live && (setPage(p), setLoading(false)),
      (e: unknown) => live && (setError(asApiError(e)), setLoading(false)),
    );
    return () => {
      live = false;
    };
  }, [cursors, cursor, tick]);

  const next = useCallback(() => {
    if (page?.has_more && page.next_cursor) setCursors((c) => [...c, page.next_cursor ?? undefined]);
  }, [page]);
  const previous = useCallback(() => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)), []);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const reset = useCallback(() => setCursors([undefined]), []);

  return {
    items: page?.data ?? [],
    loading,
    error,
    pageNumber: cursors.length,
    hasNext: Boolean(page?.has_more && page.next_cursor),
    hasPrevious: cursors.length > 1,
    next,
    previous,
    reload,
    reset,
  };
}

/** A single request as state: `{data, error, loading, reload}`; `deps` re-run it. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): { data: T | undefined; error: ApiError | null; loading: boolean; reload: () => void; setData: (d: T) => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    setLoading(true);
    setError(null);
    loadRef.current().then(
      (d) => live && (setData(d), setLoading(false)),
      (e: unknown) => live && (setError(asApiError(e)), setLoading(false)),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data, error, loading, reload: () => setTick((t) => t + 1), setData };
}

/** An empty first page: what a list screen loads for a member whose role may not read it (nothing is requested). */
export const emptyPage = <T,>(): Promise<Page<T>> => Promise.resolve({ data: [], has_more: false, next_cursor: null });
