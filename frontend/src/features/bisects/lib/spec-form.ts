import type { BisectCreate, MetricDirection, VerdictRule } from '@/api/types';

import { type FieldErrors, parseNumber } from './form-errors';

/** What the bisect forms (start now, schedule) share: the repository, the reproducer and its rule. */
export interface SpecValues {
  repo: string;
  path: string;
  command: string;
  repeats: string;
  minAgreement: string;
  rule: VerdictRule;
  metric: string;
  threshold: string;
  direction: MetricDirection;
  stepTimeout: string;
  onError: BisectCreate['on_error'];
  /** NAME=value lines: the only variables the reproducer gets besides its own run's. */
  env: string;
  network: boolean;
}

export const DEFAULT_SPEC: SpecValues = {
  repo: '',
  path: '',
  command: '',
  repeats: '1',
  minAgreement: '0.8',
  rule: 'exit_code',
  metric: '',
  threshold: '',
  direction: 'above_is_bad',
  stepTimeout: '3600',
  onError: 'stop',
  env: '',
  network: false,
};

/** The API's names for the spec fields, as its 400s name them. */
export const SPEC_API_FIELDS = [
  'repo',
  'path',
  'command',
  'repeats',
  'min_agreement',
  'rule',
  'metric',
  'threshold',
  'direction',
  'step_timeout',
  'on_error',
  'env',
  'network',
] as const;

/** The API's name for each form value, to clear a field's message when it is edited. */
export const SPEC_API_NAME: Record<keyof SpecValues, (typeof SPEC_API_FIELDS)[number]> = {
  repo: 'repo',
  path: 'path',
  command: 'command',
  repeats: 'repeats',
  minAgreement: 'min_agreement',
  rule: 'rule',
  metric: 'metric',
  threshold: 'threshold',
  direction: 'direction',
  stepTimeout: 'step_timeout',
  onError: 'on_error',
  env: 'env',
  network: 'network',
};

export const SPEC_KEYS = [
  'repo',
  'path',
  'command',
  'repeats',
  'minAgreement',
  'rule',
  'metric',
  'threshold',
  'direction',
  'stepTimeout',
  'onError',
  'env',
  'network',
] as const satisfies readonly (keyof SpecValues)[];

export const MAX_REPEATS = 50;

type SpecBody = Omit<BisectCreate, 'good' | 'bad'>;

/** Checks what the browser can check before the API does; keys are the API's field names. */
export function validateSpec(values: SpecValues): FieldErrors {
  const errors: FieldErrors = {};
  if (!values.repo.trim()) errors.repo = ['Give a git repository: a URL or a path on the workers.'];
  if (!values.command.trim()) errors.command = ['Give the command that reproduces the problem.'];
  const repeats = parseNumber(values.repeats);
  if (repeats === undefined || !Number.isInteger(repeats) || repeats < 1 || repeats > MAX_REPEATS) {
    errors.repeats = [`A whole number from 1 to ${MAX_REPEATS}.`];
  }
  if (repeats !== undefined && repeats > 1) {
    const agreement = parseNumber(values.minAgreement);
    if (agreement === undefined || agreement < 0.5 || agreement > 1) errors.min_agreement = ['Between 0.5 and 1.'];
  }
  if (values.rule === 'metric') {
    if (!values.metric.trim()) errors.metric = ['Name the value the reproducer prints (name=value).'];
    if (parseNumber(values.threshold) === undefined) errors.threshold = ['A number.'];
  }
  const timeout = parseNumber(values.stepTimeout);
  if (timeout === undefined || timeout < 1) errors.step_timeout = ['At least 1 second.'];
  const env = parseEnv(values.env);
  if (typeof env === 'string') errors.env = [env];
  return errors;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** NAME=value lines as a map, or what is wrong with them (blank lines and # comments are skipped). */
export function parseEnv(text: string): Record<string, string> | string {
  const env: Record<string, string> = {};
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    const name = eq < 0 ? line : line.slice(0, eq);
    if (eq < 0 || !ENV_NAME.test(name)) return `Line ${i + 1}: write NAME=value (letters, digits and _ in the name).`;
    if (name.toUpperCase().startsWith('WHODUNNET_'))
      return `Line ${i + 1}: WHODUNNET_ variables are set by the runner.`;
    env[name] = line.slice(eq + 1);
  }
  return env;
}

/** The request fields for a valid form. */
export function specBody(values: SpecValues): SpecBody {
  const repeats = parseNumber(values.repeats) ?? 1;
  const metric = values.rule === 'metric';
  return {
    repo: values.repo.trim(),
    path: values.path.trim(),
    command: values.command.trim(),
    repeats,
    min_agreement: repeats > 1 ? (parseNumber(values.minAgreement) ?? 0.8) : 0.8,
    rule: values.rule,
    metric: metric ? values.metric.trim() : '',
    threshold: metric ? (parseNumber(values.threshold) ?? null) : null,
    direction: values.direction,
    step_timeout: parseNumber(values.stepTimeout) ?? 3600,
    on_inconclusive: 'retry_then_skip',
    on_error: values.onError,
    runner: 'local',
    env: (() => {
      const env = parseEnv(values.env);
      return typeof env === 'string' ? {} : env;
    })(),
    network: values.network,
  };
}
