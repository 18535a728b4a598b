/** The job page of one bisect. */
export function bisectPath(incidentId: number, bisectId: number): string {
  return `/incidents/${incidentId}/bisects/${bisectId}`;
}

/** Short commit id, as git shows it. */
export function shortCommit(commit: string): string {
  return commit.slice(0, 12);
}

/** Whether a file is under the path filter, as git's pathspec matches a directory prefix. */
export function underPath(file: string, path: string): boolean {
  const prefix = path.replace(/\/+$/, '');
  return prefix !== '' && (file === prefix || file.startsWith(`${prefix}/`));
}
