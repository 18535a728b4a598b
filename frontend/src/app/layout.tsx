import { Link, Outlet } from 'react-router-dom';

import { UserMenu } from '@/features/auth/components/user-menu';

export function AppLayout() {
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Whodunnet
        </Link>
        <UserMenu />
      </header>
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
