import { Link } from 'react-router-dom';

/**
 * Shown for unknown URLs and for incidents the user may not see: the API answers 404 to anyone
 * outside the incident's team, so "not found" is deliberately the same message for both.
 */
export function NotFound({ what = 'Page' }: { what?: string }) {
  return (
    <section className="not-found" aria-labelledby="not-found-heading">
      <h1 id="not-found-heading">Not found</h1>
      <p>{what} not found. It may not exist, or it belongs to a team you are not in.</p>
      <p>
        <Link to="/">Back to incidents</Link>
      </p>
    </section>
  );
}
