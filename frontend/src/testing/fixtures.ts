import type { ChecklistStep, Evidence, Finding } from '@/api/types';

export function makeFinding(overrides: Partial<Finding> = {}): Finding {
  return {
    id: 1,
    evidence: 1,
    kind: 'tcp.syn_retransmit',
    key: 'conn-1',
    layer: 'network',
    severity: 'high',
    title: 'SYN retransmitted 3 times',
    explanation: 'The client retried its SYN after 1 s, 2 s and 4 s; the handshake took 7.0 s.',
    refs: [{ stream: 3, packets: '1-4' }],
    data: {},
    created_at: '2024-05-01T10:00:00Z',
    ...overrides,
  };
}

export function makeStep(overrides: Partial<ChecklistStep> = {}): ChecklistStep {
  return {
    layer: 'neighbours',
    position: 0,
    verdict: 'not_looked_at',
    rationale: '',
    updated_by: null,
    updated_at: null,
    findings: [],
    suggestion: null,
    hint: 'Upload per-interface counters to compare throughput with each limit.',
    ...overrides,
  };
}

export function makeEvidence(overrides: Partial<Evidence> = {}): Evidence {
  return {
    id: 11,
    filename: 'client.pcap',
    size: 3_145_728,
    sha256: 'a3f1c2d4e5b6978812345678900abcdefabcdefabcdefabcdefabcdefabcdef',
    kind: 'capture',
    uploaded_by: 'alice',
    uploaded_at: '2024-05-01T10:00:00Z',
    analysis: null,
    summary: null,
    ...overrides,
  };
}

type Run = NonNullable<Evidence['analysis']>;

export function makeRun(overrides: Partial<Run> = {}): Run {
  return {
    id: 5,
    status: 'queued',
    progress: 0,
    progress_message: '',
    attempts: 0,
    queued_at: '2024-05-01T10:00:00Z',
    started_at: null,
    finished_at: null,
    engine_version: '',
    error: '',
    error_offset: null,
    ...overrides,
  };
}
