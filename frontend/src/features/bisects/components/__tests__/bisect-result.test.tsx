import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { makeBisect } from '@/testing/fixtures';
import { renderWithProviders } from '@/testing/render';

import { BisectResult } from '../bisect-result';

const FIRST_BAD = {
  id: 'dfa2f0483360d4d6f2324405464c9f281156bd87',
  title: 'tcp: get rid of sysctl_tcp_adv_win_scale',
  author: 'Eric Dumazet <edumazet@google.com>',
  date: '2023-07-17T15:29:17Z',
  files: ['net/ipv4/tcp_input.c'],
  touches_path: true,
};

describe('BisectResult', () => {
  it('links the knowledge base entry of the first bad commit and its sources', () => {
    const source = 'https://lore.kernel.org/netdev/20230717152917.751987-1-edumazet@google.com/';
    renderWithProviders(
      <BisectResult
        job={makeBisect({
          status: 'found',
          finished: true,
          first_bad: {
            ...FIRST_BAD,
            known_change: {
              id: 'dfa2f0483360',
              title: 'tcp: get rid of sysctl_tcp_adv_win_scale',
              first_release: '6.6',
              change: 'The receive window is rcvbuf x scaling_ratio.',
              sources: [source],
            },
          },
        })}
      />,
    );
    const known = screen.getByRole('region', { name: 'Known change in the kernel knowledge base' });
    expect(known).toHaveTextContent('(dfa2f0483360, first in 6.6)');
    const link = within(known).getByRole('link', { name: source });
    expect(link).toHaveAttribute('href', source);
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    expect(link).toHaveAttribute('target', '_blank');
  });

  it('says nothing about the knowledge base when the commit is not in it', () => {
    renderWithProviders(
      <BisectResult
        job={makeBisect({ status: 'found', finished: true, first_bad: { ...FIRST_BAD, known_change: null } })}
      />,
    );
    expect(screen.getByText('First bad commit')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: /Known change/ })).not.toBeInTheDocument();
  });
});
