import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

import { connectionPath } from '@/lib/anchors';

import { formatValue, labelOf } from '../lib/data-format';

/** Where a connection id in a finding's numbers leads: the capture it was found in. */
export interface ConnectionTarget {
  incidentId: number;
  evidenceId: number | null;
}

export function ConnectionLink({ target, id }: { target: ConnectionTarget; id: unknown }) {
  if (typeof id !== 'number' && typeof id !== 'string') return null;
  if (target.evidenceId === null) return <span>connection {String(id)}</span>;
  return <Link to={connectionPath(target.incidentId, target.evidenceId, id)}>connection {String(id)}</Link>;
}

/** Key facts as a definition list; keys without a value worth showing are left out. */
export function DataFacts({
  data,
  keys,
  target,
  label = 'Numbers',
}: {
  data: Record<string, unknown>;
  keys: readonly string[];
  target: ConnectionTarget;
  label?: string;
}) {
  const rows = keys.flatMap((key): [string, ReactNode][] => {
    const value = data[key];
    if (key === 'connection_ids' && Array.isArray(value) && value.length > 0) {
      return [
        [
          key,
          <span key={key} className="link-list">
            {(value as unknown[]).map((v, i) => (
              <ConnectionLink key={i} target={target} id={v} />
            ))}
          </span>,
        ],
      ];
    }
    const text = formatValue(key, value);
    return text === null ? [] : [[key, text]];
  });
  if (rows.length === 0) return null;
  return (
    <dl className="facts finding__facts" aria-label={label}>
      {rows.map(([key, value]) => (
        <div key={key}>
          <dt>{labelOf(key)}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

const MAX_ROWS = 20;

/** The engine's per-connection rows as a table; a `connection` column links to the connection. */
export function RowsTable({
  rows,
  target,
  label,
  columns,
}: {
  rows: Record<string, unknown>[];
  target: ConnectionTarget;
  label: string;
  columns?: readonly string[];
}) {
  const keys = columns ?? [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const shown = keys.filter((key) => rows.some((row) => key === 'connection' || formatValue(key, row[key]) !== null));
  return (
    <div className="table-scroll">
      <table className="table table--compact" aria-label={label}>
        <thead>
          <tr>
            {shown.map((key) => (
              <th key={key} scope="col">
                {labelOf(key)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, MAX_ROWS).map((row, i) => (
            <tr key={i}>
              {shown.map((key) => (
                <td key={key}>
                  {key === 'connection' ? (
                    <ConnectionLink target={target} id={row[key]} />
                  ) : (
                    (formatValue(key, row[key]) ?? '—')
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > MAX_ROWS && <p className="small muted">and {rows.length - MAX_ROWS} more</p>}
    </div>
  );
}
