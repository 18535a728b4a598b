interface ProgressBarProps {
  /** 0..100 */
  percent: number;
  label: string;
  /** Text a screen reader reads instead of the bare number, e.g. "42% (3.1 of 7.4 MiB)". */
  valueText?: string;
}

/** A determinate progress bar with the ARIA progressbar role. */
export function ProgressBar({ percent, label, valueText }: ProgressBarProps) {
  const clamped = Math.max(0, Math.min(100, Math.round(percent)));
  return (
    <div
      className="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={clamped}
      aria-valuetext={valueText ?? `${clamped}%`}
    >
      <div className="progress__fill" style={{ width: `${clamped}%` }} />
    </div>
  );
}
