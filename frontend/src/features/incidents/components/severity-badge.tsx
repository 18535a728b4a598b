import { Badge } from '@/components/badge';
import type { Severity } from '@/api/types';

import { SEVERITY_TONE } from '../labels';

export function SeverityBadge({ severity }: { severity: Severity }) {
  return <Badge tone={SEVERITY_TONE[severity]}>{severity.toUpperCase()}</Badge>;
}
