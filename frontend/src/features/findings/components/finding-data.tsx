import { findingSpec, useEvidenceKinds } from '@/api/evidence-kinds';
import type { FindingSpec } from '@/api/types';
import { isRecord } from '@/lib/narrow';

import { type Fields, fieldsOf, isRowList } from '../lib/data-format';
import { type ConnectionTarget, DataFacts, RowsTable } from './data-table';
import { KnownChangesTable, WindowModelTable } from './kernel-tables';

type Table = FindingSpec['tables'][number];

/** The dedicated renderings a finding kind can ask for (`view` in its spec). */
const VIEWS = {
  known_changes: KnownChangesTable,
  window_model: WindowModelTable,
} as const;

function isView(view: string): view is keyof typeof VIEWS {
  return view in VIEWS;
}

/** A map of rows such as tcp.retransmissions' `by_sender: {client: {...}, server: {...}}`, as rows. */
function keyedRows(value: unknown, by: string): Record<string, unknown>[] | null {
  if (!isRecord(value)) return null;
  const rows = Object.entries(value).flatMap(([key, row]) => (isRecord(row) ? [{ [by]: key, ...row }] : []));
  return rows.length > 0 ? rows : null;
}

/** For a finding kind this server does not describe: every scalar key, and every list of rows as a table. */
function undescribed(data: Record<string, unknown>): { facts: string[]; tables: Table[] } {
  return {
    facts: Object.keys(data).filter((key) => !isRowList(data[key])),
    tables: Object.keys(data)
      .filter((key) => isRowList(data[key]))
      .map((key) => ({ key, label: key === 'rows' ? 'Per connection' : key, columns: [], by: '' })),
  };
}

function DataTable({
  table,
  data,
  fields,
  target,
}: {
  table: Table;
  data: Record<string, unknown>;
  fields: Fields;
  target: ConnectionTarget;
}) {
  const value = data[table.key];
  const rows = table.by ? keyedRows(value, table.by) : isRowList(value) ? value : null;
  if (!rows) return null;
  return <RowsTable rows={rows} target={target} label={table.label} columns={table.columns} fields={fields} />;
}

/**
 * The numbers behind a finding, shown as the engine declares for its kind (the facts in order, the
 * tables, each key's label and unit); key/value pairs for a kind it does not describe.
 */
export function FindingData({ kind, data, target }: { kind: string; data: unknown; target: ConnectionTarget }) {
  const catalogue = useEvidenceKinds();
  const spec = findingSpec(catalogue, kind);
  if (!isRecord(data) || Object.keys(data).length === 0) return null;
  if (spec && isView(spec.view)) {
    const View = VIEWS[spec.view];
    return <View data={data} />;
  }
  const fields = fieldsOf(catalogue, spec);
  const { facts, tables } = spec ?? undescribed(data);
  return (
    <div className="finding__data">
      <DataFacts data={data} keys={facts} fields={fields} target={target} />
      {tables.map((table) => (
        <DataTable key={table.key} table={table} data={data} fields={fields} target={target} />
      ))}
    </div>
  );
}
