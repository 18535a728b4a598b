import { screen } from '@testing-library/react';
import { Route, Routes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';

import { json, mockApi } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { IncidentRoute } from '../incident';

describe('IncidentRoute', () => {
  it('says "Not found" when the incident belongs to another team (the API answers 404)', async () => {
    mockApi({ 'GET /api/incidents/42/': () => json({ detail: 'Not found.' }, 404) });
    renderWithProviders(
      <Routes>
        <Route path="/incidents/:incidentId" element={<IncidentRoute />} />
      </Routes>,
      { route: '/incidents/42' },
    );
    expect(await screen.findByRole('heading', { name: 'Not found' })).toBeInTheDocument();
    expect(screen.getByText(/Incident not found/)).toBeInTheDocument();
  });
});
