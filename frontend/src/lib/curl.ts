/** The shell command that uploads a capture with an API token, exactly as the README documents it. */
export function curlUploadCommand({
  origin,
  token,
  incidentId,
  filename = 'capture.pcap',
}: {
  origin: string;
  token: string;
  incidentId: number | string;
  filename?: string;
}): string {
  const query = new URLSearchParams({ filename }).toString();
  return (
    `curl --fail -H "Authorization: Token ${token}" -H "Content-Type: application/octet-stream" ` +
    `-T ${filename} "${origin}/api/incidents/${String(incidentId)}/evidence/upload/?${query}"`
  );
}
