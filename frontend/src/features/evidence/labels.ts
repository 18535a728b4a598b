import type { EvidenceKind } from '@/api/types';

/** Every kind the API accepts, with a name for people; `Record` makes the compiler list them all. */
export const EVIDENCE_KIND_LABEL: Record<EvidenceKind, string> = {
  capture: 'Packet capture',
  strace: 'strace output',
  kernel_versions: 'Kernel versions',
  sysctl: 'sysctl values',
  counters: 'Host counters',
  sockets: 'Socket statistics (ss)',
  latency: 'Latency samples',
  app_config: 'Application config',
};

export const EVIDENCE_KINDS = Object.keys(EVIDENCE_KIND_LABEL) as EvidenceKind[];
