import type { ReactNode } from 'react';
import type { PagedList } from '../api/paging';
import { Empty, ErrorState, Loading, Pager } from './States';

export interface Column<T> {
  key: string;
  header: string;
  render: (row: T) => ReactNode;
  className?: string;
}

/**
 * A native table (screen readers announce rows and headers) that scrolls sideways on a phone. With `selected` and
 * `onSelectedChange`, each row gets a labelled checkbox and the header a "select all on this page" box.
 */
export interface DataTableProps<T> {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowId: (row: T) => string;
  /** How a row is named in its checkbox label ("Select <name>"). */
  rowLabel?: (row: T) => string;
  selected?: ReadonlySet<string>;
  onSelectedChange?: (next: Set<string>) => void;
}

export function DataTable<T>({ caption, columns, rows, rowId, rowLabel, selected, onSelectedChange }: DataTableProps<T>) {
  const selectable = Boolean(selected && onSelectedChange);
  const allOnPage = rows.length > 0 && rows.every((r) => selected?.has(rowId(r)));
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={caption}>
      <table className="data-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {selectable && (
              <th scope="col" className="select">
                <input
                  type="checkbox"
                  aria-label="Select every row on this page"
                  checked={allOnPage}
                  onChange={(e) => {
                    const next = new Set(selected);
                    for (const r of rows) {
                      if (e.target.checked) next.add(rowId(r));
                      else next.delete(rowId(r));
                    }
                    onSelectedChange?.(next);
                  }}
                />
              </th>
            )}
            {columns.map((c) => (
              <th key={c.key} scope="col" className={c.className}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const id = rowId(r);
            return (
              <tr key={id}>
                {selectable && (
                  <td className="select">
                    <input
                      type="checkbox"
                      aria-label={`Select ${rowLabel ? rowLabel(r) : id}`}
                      checked={selected?.has(id) ?? false}
                      onChange={(e) => {
                        const next = new Set(selected);
                        if (e.target.checked) next.add(id);
                        else next.delete(id);
                        onSelectedChange?.(next);
                      }}
                    />
                  </td>
                )}
                {columns.map((c) => (
                  <td key={c.key} className={c.className}>
                    {c.render(r)}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * One page of a cursor list (usePagedList) as a table, with every state a list screen shows: the load's error with its
 * Retry, Loading, `empty` when the page has no row, else the DataTable; then Previous / Next (labelled by `label`).
 */
export function PagedTable<T>({ list, label, empty, ...table }: Omit<DataTableProps<T>, 'rows'> & { list: PagedList<T>; label: string; empty: ReactNode }) {
  return (
    <>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : list.loading && !list.items.length ? (
        <Loading />
      ) : !list.items.length ? (
        <Empty>{empty}</Empty>
      ) : (
        <DataTable {...table} rows={list.items} />
      )}
      <Pager list={list} label={label} />
    </>
  );
}
