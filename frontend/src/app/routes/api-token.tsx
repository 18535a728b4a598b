import { ApiTokenPanel } from '@/features/auth/components/api-token-panel';

export function ApiTokenRoute() {
  return (
    <div className="narrow">
      <ApiTokenPanel />
    </div>
  );
}
