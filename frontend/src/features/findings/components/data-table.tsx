import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

import type { FindingField } from '@/api/types';
import { connectionPath } from '@/lib/anchors';

import { type Fields, fieldOf, formatValue } from '../lib/data-format';

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

/** A value in its field's unit; connection ids become links to the connection. */
function Value({
  field,
  value,
  fields,
  target,
}: {
  field: FindingField;
  value: unknown;
  fields: Fields;
  target: ConnectionTarget;
}): ReactNode {
  if (field.unit === 'connection' && (typeof value === 'number' || typeof value === 'string')) {
    return <ConnectionLink target={target} id={value} />;
  }
  const ids: unknown[] = Array.isArray(value) ? value : [];
  if (field.unit === 'connection' && ids.length > 0) {
    return (
      <span className="link-list">
        {ids.map((v, i) => (
          <ConnectionLink key={i} target={target} id={v} />
        ))}
      </span>
    );
  }
  return formatValue(field, value, fields);
}

function worthShowing(field: FindingField, value: unknown, fields: Fields): boolean {
  return formatValue(field, value, fields) !== null;
}

/** Key facts as a definition list; keys without a value worth showing are left out. */
export function DataFacts({
  data,
  keys,
  fields,
  target,
  label = 'Numbers',
}: {
  data: Record<string, unknown>;
  keys: readonly string[];
  fields: Fields;
  target: ConnectionTarget;
  label?: string;
}) {
  const shown = keys.map((key) => fieldOf(fields, key)).filter((field) => worthShowing(field, data[field.key], fields));
  if (shown.length === 0) return null;
  return (
    <dl className="facts finding__facts" aria-label={label}>
      {shown.map((field) => (
        <div key={field.key}>
          <dt>{field.label}</dt>
          <dd>
            <Value field={field} value={data[field.key]} fields={fields} target={target} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

const MAX_ROWS = 20;

/** Rows as a table, in the engine's order; a connection column links to the connection. */
export function RowsTable({
  rows,
  target,
  label,
  columns,
  fields,
}: {
  rows: Record<string, unknown>[];
  target: ConnectionTarget;
  label: string;
  columns?: readonly string[];
  fields: Fields;
}) {
  const keys = columns && columns.length > 0 ? columns : [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const shown = keys
    .map((key) => fieldOf(fields, key))
    .filter((field) => rows.some((row) => field.unit === 'connection' || worthShowing(field, row[field.key], fields)));
  return (
    <div className="table-scroll">
      <table className="table table--compact" aria-label={label}>
        <thead>
          <tr>
            {shown.map((field) => (
              <th key={field.key} scope="col">
                {field.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, MAX_ROWS).map((row, i) => (
            <tr key={i}>
              {shown.map((field) => (
                <td key={field.key}>
                  {worthShowing(field, row[field.key], fields) || field.unit === 'connection' ? (
                    <Value field={field} value={row[field.key]} fields={fields} target={target} />
                  ) : (
                    '—'
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
