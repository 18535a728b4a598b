import DOMPurify from 'dompurify';
import { marked } from 'marked';

/**
 * A note's Markdown as safe HTML: marked turns it into HTML and DOMPurify keeps only harmless markup (no script,
 * no event handlers, no styles, no images or forms). Links open in a new tab without handing it this page.
 */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: true }).trim();
  const clean = DOMPurify.sanitize(html, {
    FORBID_TAGS: ['img', 'style', 'form', 'input', 'button', 'iframe', 'video', 'audio', 'svg', 'math'],
    FORBID_ATTR: ['style', 'class', 'id'],
  });
  const box = document.createElement('div');
  box.innerHTML = clean;
  for (const link of box.querySelectorAll('a')) {
    link.setAttribute('target', '_blank');
    link.setAttribute('rel', 'noopener noreferrer');
  }
  return box.innerHTML;
}
