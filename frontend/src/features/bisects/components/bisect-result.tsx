import { useId } from 'react';

import { ErrorMessage } from '@/components/error-message';
import type { Bisect } from '@/api/types';
import { formatDateTime } from '@/lib/format';

import { shortCommit, underPath } from '../lib/paths';

/** The outcome: the first bad commit with its title, author, date and files, or why there is none. */
export function BisectResult({ job }: { job: Bisect }) {
  const id = useId();
  if (job.status === 'failed') return <ErrorMessage>The bisect failed: {job.error || 'no reason given'}</ErrorMessage>;
  if (job.status === 'ambiguous') {
    return (
      <article className="card bisect-result" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>Only skipped commits left</h2>
        <p>The first bad commit is one of these (they could not be tested):</p>
        <ul className="mono">
          {job.possible_first_bad.map((commit) => (
            <li key={commit}>{commit}</li>
          ))}
        </ul>
      </article>
    );
  }
  const first = job.first_bad;
  if (!first) return null;
  return (
    <article className="card bisect-result" aria-labelledby={`${id}-title`}>
      <header className="card__head">
        <h2 id={`${id}-title`}>First bad commit</h2>
      </header>
      <p className="bisect-result__title">
        <span className="mono" title={first.id}>
          {shortCommit(first.id)}
        </span>{' '}
        <strong>{first.title}</strong>
      </p>
      <dl className="facts">
        <div>
          <dt>Commit</dt>
          <dd className="mono">{first.id}</dd>
        </div>
        <div>
          <dt>Author</dt>
          <dd>{first.author}</dd>
        </div>
        <div>
          <dt>Date</dt>
          <dd>
            <time dateTime={first.date}>{formatDateTime(first.date)}</time>
          </dd>
        </div>
        <div>
          <dt>Path filter</dt>
          <dd>
            {first.touches_path === null
              ? 'none given'
              : first.touches_path
                ? `touches ${job.path}`
                : `does not touch ${job.path}`}
          </dd>
        </div>
      </dl>
      {first.known_change && (
        <section className="known-change" aria-labelledby={`${id}-known`}>
          <h3 id={`${id}-known`} className="small">
            Known change in the kernel knowledge base
          </h3>
          <p>
            <strong>{first.known_change.title}</strong>{' '}
            <span className="muted small">
              ({first.known_change.id}, first in {first.known_change.first_release})
            </span>
          </p>
          {first.known_change.change && <p className="small">{first.known_change.change}</p>}
          <ul className="source-links" aria-label="Sources">
            {first.known_change.sources
              .filter((url) => /^https?:\/\//i.test(url))
              .map((url) => (
                <li key={url}>
                  <a href={url} target="_blank" rel="noopener noreferrer">
                    {url}
                  </a>
                </li>
              ))}
          </ul>
        </section>
      )}
      <h3 className="small">Files touched ({first.files.length})</h3>
      <ul className="bisect-result__files" aria-label="Files touched">
        {first.files.map((file) => (
          <li key={file} className="mono">
            {file}
            {job.path && underPath(file, job.path) && <span className="muted"> (in {job.path})</span>}
          </li>
        ))}
      </ul>
    </article>
  );
}
