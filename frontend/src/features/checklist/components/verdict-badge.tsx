import { Badge } from '@/components/badge';
import type { Verdict } from '@/api/types';

import { VERDICT_LABEL, VERDICT_TONE } from '../labels';

export function VerdictBadge({ verdict }: { verdict: Verdict }) {
  return <Badge tone={VERDICT_TONE[verdict]}>{VERDICT_LABEL[verdict]}</Badge>;
}
