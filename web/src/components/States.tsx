import { useEffect, useState, type ReactNode } from 'react';
import type { ApiError } from '../api/errors';
import type { PagedList } from '../api/paging';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p role="status" className="loading">
      {label}
    </p>
  );
}

export function Empty({ children, action }: { children: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      <p>{children}</p>
      {action}
    </div>
  );
}

/**
 * A failed load, never a blank screen: the API's message (and request id), and for a network failure, a 429 or a 503
 * a Retry button that waits out `Retry-After` first.
 */
export function ErrorState({ error, onRetry }: { error: ApiError; onRetry?: () => void }) {
  const [wait, setWait] = useState(Math.ceil((error.retryAfterMs ?? 0) / 1000));
  useEffect(() => {
    setWait(Math.ceil((error.retryAfterMs ?? 0) / 1000));
  }, [error]);
  useEffect(() => {
    if (wait <= 0) return;
    const t = setTimeout(() => setWait((w) => w - 1), 1000);
    return () => clearTimeout(t);
  }, [wait]);
  const title =
    error.status === 0 ? 'Cannot reach the API' : error.status === 429 ? 'Too many requests' : error.status === 503 ? 'Service unavailable' : error.status === 404 ? 'Not found' : error.status === 403 ? 'Not allowed' : 'Something went wrong';
  return (
    <div role="alert" className="error-state">
      <p className="error-title">{title}</p>
      <p>{error.message}</p>
      {error.requestId && <p className="hint">Request id: {error.requestId}</p>}
      {onRetry && error.retryable && (
        <button type="button" className="button" disabled={wait > 0} onClick={onRetry}>
          {wait > 0 ? `Retry in ${wait} s` : 'Retry'}
        </button>
      )}
    </div>
  );
}

/** Previous / next for a usePagedList. */
export function Pager({ list, label }: { list: PagedList<unknown>; label: string }) {
  if (!list.hasNext && !list.hasPrevious) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" className="button secondary" disabled={!list.hasPrevious || list.loading} onClick={list.previous}>
        Previous
      </button>
      <span>Page {list.pageNumber}</span>
      <button type="button" className="button secondary" disabled={!list.hasNext || list.loading} onClick={list.next}>
        Next
      </button>
    </nav>
  );
}

export function PageHeader({ title, actions, children }: { title: string; actions?: ReactNode; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1 tabIndex={-1}>{title}</h1>
      {children}
      {actions && <div className="actions">{actions}</div>}
    </header>
  );
}

/** Placeholder body of a screen another change fills in. */
export function ComingSoon({ title }: { title: string }) {
  return (
    <>
      <PageHeader title={title} />
      <p>This screen is coming soon.</p>
    </>
  );
}
