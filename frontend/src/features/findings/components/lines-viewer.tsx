import { useQuery } from '@tanstack/react-query';

import { ErrorMessage } from '@/components/error-message';
import { Loading } from '@/components/loading';

import { evidenceLinesQueryOptions } from '../api/findings-api';

/** Lines shown around the ones a finding points at. */
export const CONTEXT_LINES = 2;

interface LinesViewerProps {
  incidentId: number;
  evidenceId: number;
  lines: readonly [number, number];
}

/**
 * The evidence lines a finding points at, with a little context, as plain text in monospace with
 * line numbers (React escapes the text: a file's content is never rendered as HTML).
 */
export function LinesViewer({ incidentId, evidenceId, lines }: LinesViewerProps) {
  const start = Math.max(1, lines[0] - CONTEXT_LINES);
  const end = lines[1] + CONTEXT_LINES;
  const query = useQuery(evidenceLinesQueryOptions(incidentId, evidenceId, start, end));
  if (query.isPending) return <Loading label="Loading lines…" />;
  if (query.isError) return <ErrorMessage>Could not load the lines: {query.error.message}</ErrorMessage>;
  if (query.data.lines.length === 0) return <p className="muted small">The file has no such lines.</p>;
  return (
    <ol className="lines-viewer" aria-label={`Lines ${lines[0]}–${lines[1]}`}>
      {query.data.lines.map((line) => {
        const pointed = line.number >= lines[0] && line.number <= lines[1];
        return (
          <li
            key={line.number}
            className={pointed ? 'lines-viewer__line lines-viewer__line--hit' : 'lines-viewer__line'}
          >
            <span className="lines-viewer__number" aria-hidden="true">
              {line.number}
            </span>
            <code>{line.text}</code>
          </li>
        );
      })}
    </ol>
  );
}
