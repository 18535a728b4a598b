import { useNavigate } from 'react-router-dom';

import { NewIncidentForm } from '@/features/incidents/components/new-incident-form';

export function NewIncidentRoute() {
  const navigate = useNavigate();
  return (
    <div className="narrow">
      <NewIncidentForm
        onCreated={(incident) => {
          void navigate(`/incidents/${String(incident.id)}`);
        }}
      />
    </div>
  );
}
