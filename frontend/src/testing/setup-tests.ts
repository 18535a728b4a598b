import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// jsdom does not lay out, so it has no scrollIntoView; components call it to bring a form into view.
Element.prototype.scrollIntoView = function scrollIntoView() {
  // nothing to scroll in jsdom
};

// findBy/waitFor wait up to 5 s (default 1 s) for what a test awaits: on a loaded machine a lazily loaded chart or
// a mocked response can take longer than a second to render. A test whose awaited text never comes still fails.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
});
