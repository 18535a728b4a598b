import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// jsdom does not lay out, so it has no scrollIntoView; components call it to bring a form into view.
Element.prototype.scrollIntoView = function scrollIntoView() {
  // nothing to scroll in jsdom
};

afterEach(() => {
  cleanup();
});
