/** Colours for a chart's series, told apart in light and dark themes and by most colour-blind readers. */
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
