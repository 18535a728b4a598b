import { Route, Routes } from 'react-router-dom';

import { NotFound } from '@/components/not-found';

import { AppLayout } from './layout';
import { ApiTokenRoute } from './routes/api-token';
import { BisectRoute } from './routes/bisect';
import { ConnectionRoute, ConnectionsRoute, PacketsRoute } from './routes/connections';
import { IncidentRoute } from './routes/incident';
import { IncidentsRoute } from './routes/incidents';
import { NewIncidentRoute } from './routes/new-incident';
import { RequireAuth } from './require-auth';
import { SignInRoute } from './routes/sign-in';

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route path="/sign-in" element={<SignInRoute />} />
        <Route element={<RequireAuth />}>
          <Route index element={<IncidentsRoute />} />
          <Route path="/incidents" element={<IncidentsRoute />} />
          <Route path="/incidents/new" element={<NewIncidentRoute />} />
          <Route path="/incidents/:incidentId" element={<IncidentRoute />} />
          <Route path="/incidents/:incidentId/bisects/:bisectId" element={<BisectRoute />} />
          <Route path="/incidents/:incidentId/evidence/:evidenceId/connections" element={<ConnectionsRoute />} />
          <Route path="/incidents/:incidentId/evidence/:evidenceId/connections/:connId" element={<ConnectionRoute />} />
          <Route
            path="/incidents/:incidentId/evidence/:evidenceId/connections/:connId/packets"
            element={<PacketsRoute />}
          />
          <Route path="/api-token" element={<ApiTokenRoute />} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Route>
    </Routes>
  );
}
