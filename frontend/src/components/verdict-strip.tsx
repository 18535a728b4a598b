import type { Layer, Verdict } from '@/api/types';

const LAYER_WORD: Record<Layer, string> = {
  neighbours: 'Neighbours',
  network: 'Network',
  application: 'Application',
  kernel: 'Kernel',
};

const VERDICT_WORD: Record<Verdict, string> = {
  not_looked_at: 'not looked at',
  cleared: 'cleared',
  suspect: 'suspect',
  culprit: 'culprit',
};

/** The checklist in one compact block: one line per step with the verdict people gave it. */
export function VerdictStrip({ verdicts }: { verdicts: readonly { layer: Layer; verdict: Verdict }[] }) {
  if (verdicts.length === 0) return <span className="muted">No checklist yet</span>;
  return (
    <ul className="verdict-strip" aria-label="Checklist verdicts">
      {verdicts.map(({ layer, verdict }) => (
        <li key={layer} className={`verdict-strip__step verdict-strip__step--${verdict}`}>
          <span className="verdict-strip__layer">{LAYER_WORD[layer]}</span>{' '}
          <span className="verdict-strip__verdict">{VERDICT_WORD[verdict]}</span>
        </li>
      ))}
    </ul>
  );
}
