import { Badge } from '@/components/badge';
import type { BisectStatus } from '@/api/types';

import { BISECT_STATUS_LABEL, BISECT_STATUS_TONE } from '../labels';

export function BisectStatusBadge({ status }: { status: BisectStatus }) {
  return <Badge tone={BISECT_STATUS_TONE[status]}>{BISECT_STATUS_LABEL[status]}</Badge>;
}
