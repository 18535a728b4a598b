import type { Bisect, BisectStep, ChecklistStep, Connection, Evidence, Finding, TimeSequence } from '@/api/types';

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
    needs: [],
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
    provenance: {
      host: { value: null, source: null },
      role: { value: null, source: null },
      taken_at: { value: null, source: null },
    },
    analysis: null,
    summary: null,
    pairing: null,
    settings: {},
    meaning: null,
    excluded: false,
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
    error_line: null,
    forced_kind: '',
    ...overrides,
  };
}

export function makeBisectStep(overrides: Partial<BisectStep> = {}): BisectStep {
  return {
    id: 100,
    index: 0,
    attempt: 0,
    commit: 'c0ffee1234567890c0ffee1234567890c0ffee12',
    title: 'net: tcp: tweak the receive window',
    status: 'done',
    verdict: 'good',
    reason: '1 of 1 runs good',
    runs: [
      {
        exit_code: 0,
        timed_out: false,
        duration: 1.5,
        stdout_tail: 'transfer_seconds=4.1\n',
        stderr_tail: '',
        metric_value: null,
        error: null,
      },
    ],
    revisions_left: 32,
    duration: 1.5,
    claims: 1,
    worker: 'worker-1',
    queued_at: '2024-05-01T10:00:00Z',
    started_at: '2024-05-01T10:00:01Z',
    finished_at: '2024-05-01T10:00:02Z',
    ...overrides,
  };
}

export function makeBisect(overrides: Partial<Bisect> = {}): Bisect {
  return {
    id: 3,
    incident: 7,
    status: 'running',
    finished: false,
    good: 'v6.5.13',
    bad: 'v6.6.10',
    repo: '/srv/linux.git',
    path: 'net/ipv4',
    command: './repro.sh',
    repeats: 1,
    min_agreement: 0.8,
    rule: 'exit_code',
    metric: '',
    threshold: null,
    direction: 'above_is_bad',
    step_timeout: 3600,
    memory_limit_mb: null,
    on_inconclusive: 'retry_then_skip',
    on_error: 'stop',
    runner: 'local',
    env: {},
    network: false,
    started_by: 'alice',
    schedule: null,
    progress: { steps_done: 0, revisions_left: 64, steps_left: 6, mean_step_seconds: null, seconds_left: null },
    first_bad: null,
    possible_first_bad: [],
    created_at: '2024-05-01T10:00:00Z',
    started_at: null,
    finished_at: null,
    error: '',
    steps: [],
    log: '',
    ...overrides,
  };
}

export function makeConnection(overrides: Partial<Connection> = {}): Connection {
  return {
    conn_id: 0,
    client: '10.0.0.5:59236',
    server: '10.1.2.3:9092',
    first_time: 1714557600.25,
    duration: 6.02,
    packets_c2s: 153,
    packets_s2c: 103,
    bytes_c2s: 0,
    bytes_s2c: 309_248,
    retrans_c2s: 0,
    retrans_s2c: 2,
    syn_count: 1,
    synack_count: 1,
    zero_windows: 49,
    has_rst: true,
    rtt_ms: 0.025,
    ...overrides,
  };
}

export function makeTimeSequence(overrides: Partial<TimeSequence> = {}): TimeSequence {
  return {
    connection: 0,
    sender: 'server',
    t0: 1714557600,
    base_seq: 419279334,
    window_scale: 10,
    seg_time: [0.1, 0.3, 0.5],
    seg_seq: [1, 1001, 1],
    seg_len: [1000, 1000, 1000],
    seg_retransmission: [false, false, true],
    ack_time: [0.2, 0.4],
    ack_seq: [1001, 2001],
    ack_window_edge: [66537, 67537],
    segments_total: 3,
    acks_total: 2,
    stride: 1,
    error: null,
    ...overrides,
  };
}
