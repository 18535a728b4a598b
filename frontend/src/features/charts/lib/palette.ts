/** Colours and ticks shared by the charts. Colours for a chart's series, told apart in light and dark themes and by most colour-blind readers. */
import { formatClock } from '@/lib/format';

const PALETTE = [
  '#2456c7',
  '#b42318',
  '#1d7a46',
  '#8a5a00',
  '#7a3db8',
  '#0f7a8a',
  '#c2410c',
  '#4a5360',
  '#be185d',
  '#3f6212',
  '#1e3a8a',
  '#92400e',
] as const;

export function seriesColour(index: number): string {
  return PALETTE[index % PALETTE.length] ?? '#4a5360';
}

/** A tick on a time axis in the reader's zone: to the second, or to the millisecond when ticks are closer. */
export function clockTick(epochSeconds: number, step: number): string {
  const clock = formatClock(epochSeconds);
  // "10:04:31.250" without its milliseconds.
  return step >= 1 ? clock.slice(0, 8) : clock;
}

/** 0.001, 0.01 … 1e12: the only ticks labelled on a log axis (the others would crowd it). */
export function isDecade(value: number | null): value is number {
  if (value === null || value <= 0) return false;
  const exponent = Math.log10(value);
  return Math.abs(exponent - Math.round(exponent)) < 1e-9;
}
