import { flexRender, type Header, type RowData } from '@tanstack/react-table';

declare module '@tanstack/react-table' {
  // The names are the library's (declaration merging needs the same type parameters).
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface ColumnMeta<TData extends RowData, TValue> {
    /** A longer name, with its unit where the cells have one, for the tooltip and the sort button's label. */
    title?: string;
    /** Right-aligned numbers. */
    numeric?: boolean;
  }
}

/**
 * A column header of a TanStack table: a button that sorts by the column (again to reverse) when the column
 * can be sorted, with `aria-sort` on the cell; plain text otherwise.
 */
export function SortHeader<T>({ header }: { header: Header<T, unknown> }) {
  const { column } = header;
  const meta = column.columnDef.meta;
  const label = flexRender(column.columnDef.header, header.getContext());
  const sorted = column.getIsSorted();
  const canSort = column.getCanSort();
  const ariaSort = sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : canSort ? 'none' : undefined;
  const name = meta?.title ?? (typeof column.columnDef.header === 'string' ? column.columnDef.header : column.id);
  return (
    <th scope="col" className={meta?.numeric ? 'num' : undefined} aria-sort={ariaSort} title={meta?.title}>
      {canSort ? (
        <button
          type="button"
          className="sort-button"
          aria-label={`Sort by ${name}`}
          onClick={column.getToggleSortingHandler()}
        >
          {label}
          <span aria-hidden="true">{sorted === 'desc' ? ' ▼' : sorted === 'asc' ? ' ▲' : ''}</span>
        </button>
      ) : (
        label
      )}
    </th>
  );
}
